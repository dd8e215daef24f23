import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct StreamingTests {
    struct Vehicle: Decodable, Sendable, Equatable {
        let plate: String
        let modelYear: Int
    }

    /// A server whose one response streams whatever the test yields, when it yields it.
    static func streamingServer(
        contentType: String,
        status: Int = 200
    ) -> (handler: TestServer.Handler, send: AsyncStream<Data>.Continuation) {
        let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
        let handler: TestServer.Handler = { _ in .stream(chunks, status: status, contentType: contentType) }
        return (handler, continuation)
    }

    @Test func chunksArriveWhileTheServerIsStillSending() async throws {
        let (handler, send) = Self.streamingServer(contentType: "application/octet-stream")
        try await withClient(handler: handler) { client, _ in
            let stream = try await client.stream(.get, "feed")
            var iterator = stream.makeAsyncIterator()
            send.yield(Data("first".utf8))
            #expect(try await iterator.next() == Data("first".utf8))
            send.yield(Data("second".utf8))
            #expect(try await iterator.next() == Data("second".utf8))
            send.finish()
            #expect(try await iterator.next() == nil)
        }
    }

    @Test func linesArriveOneByOneWithPausesBetweenThem() async throws {
        let (handler, send) = Self.streamingServer(contentType: "text/plain")
        try await withClient(handler: handler) { client, _ in
            let stream = try await client.stream(.get, "log")
            #expect(stream.status == .ok)
            var lines = stream.lines().makeAsyncIterator()
            send.yield(Data("one\ntw".utf8))
            #expect(try await lines.next() == "one")
            send.yield(Data("o\r".utf8))
            #expect(try await lines.next() == "two")
            send.yield(Data("\nthree\r\nfour".utf8))
            #expect(try await lines.next() == "three")
            send.finish()
            #expect(try await lines.next() == "four")
            #expect(try await lines.next() == nil)
        }
    }

    @Test(arguments: [
        ("a\nb\nc", ["a", "b", "c"]),
        ("a\r\nb\r\nc\r\n", ["a", "b", "c"]),
        ("a\rb\rc\r", ["a", "b", "c"]),
        ("a\n\nb\r\r\nc", ["a", "", "b", "", "c"]),
        ("", []),
    ])
    func linesEndAtLFCRLFOrCR(body: String, expected: [String]) async throws {
        // One byte per chunk, so every terminator, CR LF included, is split across chunks.
        let chunks = body.utf8.map { Data([$0]) }
        let mock = MockTransport()
        mock.on(.get, "lines") { _ in TestResponse(headers: [("Content-Type", "text/plain")], body: .chunks(chunks)) }
        let client = RequestClient(
            environment: try ServiceEnvironment(name: "m", baseURL: "http://m/"),
            transport: mock
        )
        var lines: [String] = []
        for try await line in try await client.stream(.get, "lines").lines() { lines.append(line) }
        #expect(lines == expected)
    }

    @Test func aLineLongerThanTheLimitThrowsATypedError() async throws {
        try await withClient(handler: { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .generated(byte: UInt8(ascii: "x"), count: 4_000_000)
            )
        }) { client, _ in
            let stream = try await client.stream(.get, "long")
            let error = await #expect(throws: RequestKitError.self) {
                for try await _ in stream.lines(maximumLength: 64 * 1024) {}
            }
            #expect(error?.code == .bodyTooLarge)
        }
    }

    @Test func aStreamIsNotBoundByTheInMemoryBodyLimit() async throws {
        var configuration = RequestClient.Configuration()
        configuration.maximumBodySize = 64 * 1024
        try await withClient(
            configuration: configuration,
            handler: { _ in
                TestResponse(body: .generated(byte: 1, count: 8 * 1024 * 1024))
            }
        ) { client, _ in
            var total = 0
            for try await chunk in try await client.stream(.get, "big") { total += chunk.count }
            #expect(total == 8 * 1024 * 1024)
        }
    }

    @Test func aStatusOtherThan2xxFailsBeforeTheStreamIsHandedOut() async throws {
        struct Problem: Decodable, Sendable { let title: String }
        try await withClient(handler: { _ in .json(#"{"title": "no such feed"}"#, status: 404) }) { client, _ in
            let error = await #expect(throws: RequestKitError.self) {
                _ = try await client.stream(Endpoint(.get, "feed", as: Problem.self).errorBody(Problem.self))
            }
            #expect(error?.code == .unacceptableStatus)
            #expect(error?.status == 404)
            #expect(error?.errorBody(as: Problem.self)?.title == "no such feed")
            let other = await #expect(throws: RequestKitError.self) {
                _ = try await client.jsonLines("feed", as: Vehicle.self)
            }
            #expect(other?.code == .unacceptableStatus)
        }
    }

    @Test func newlineDelimitedJSONDecodesLineByLine() async throws {
        let (handler, send) = Self.streamingServer(contentType: "application/x-ndjson")
        try await withClient(handler: handler) { client, server in
            let values = try await client.jsonLines("vehicles/feed", as: Vehicle.self)
            var iterator = values.makeAsyncIterator()
            send.yield(Data((#"{"plate": "A 1", "modelYear": 2020}"# + "\n").utf8))
            #expect(try await iterator.next() == Vehicle(plate: "A 1", modelYear: 2020))
            send.yield(Data(("\n" + #"{"plate": "B 2", "#).utf8))
            send.yield(Data(#""modelYear": 2021}"#.utf8))
            send.finish()
            #expect(try await iterator.next() == Vehicle(plate: "B 2", modelYear: 2021))
            #expect(try await iterator.next() == nil)
            #expect(server.receivedRequests[0].header("accept")?.hasPrefix("application/x-ndjson") == true)
        }
    }

    @Test func aBadNDJSONLineThrowsDecodingFailedNamingTheLine() async throws {
        let body = """
            {"plate": "A 1", "modelYear": 2020}
            {"plate": "B 2", "modelYear": 2021}
            {"plate": "C 3", "modelYear": "abc"}

            """
        try await withClient(handler: { _ in .text(body, contentType: "application/x-ndjson") }) { client, _ in
            var decoded: [Vehicle] = []
            let error = await #expect(throws: RequestKitError.self) {
                for try await vehicle in try await client.jsonLines(Endpoint(.get, "feed", as: Vehicle.self)) {
                    decoded.append(vehicle)
                }
            }
            #expect(decoded.count == 2)
            #expect(error?.code == .decodingFailed)
            #expect(error?.reason.hasPrefix("line 3: ") == true)
            #expect(error?.reason.contains("modelYear") == true)
            #expect(error?.status == 200)
        }
    }

    @Test func serverSentEventsFollowTheStandard() async throws {
        let (handler, send) = Self.streamingServer(contentType: "text/event-stream")
        try await withClient(handler: handler) { client, server in
            let events = try await client.serverSentEvents("vehicles/events", lastEventID: "41")
            var iterator = events.makeAsyncIterator()
            send.yield(Data("\u{FEFF}: a comment\r\nretry: 2500\r\nevent: position\r\nid: 42\r\n".utf8))
            send.yield(Data("data: {\"plate\": \"A 1\",\rdata:  \"lat\": 59.3}\r\r".utf8))
            let first = try await iterator.next()
            #expect(
                first
                    == ServerSentEvent(
                        type: "position",
                        data: "{\"plate\": \"A 1\",\n \"lat\": 59.3}",
                        id: "42",
                        retry: .milliseconds(2500)
                    )
            )
            send.yield(Data("data:no space\nunknown: field\nretry: 12x\n\n".utf8))
            let second = try await iterator.next()
            #expect(second == ServerSentEvent(data: "no space", id: "42", retry: .milliseconds(2500)))
            send.yield(Data("event: ignored without data\n\nid\ndata\n\ndata: cut off".utf8))
            let third = try await iterator.next()
            #expect(third == ServerSentEvent(data: "", id: nil, retry: .milliseconds(2500)))
            send.finish()
            #expect(try await iterator.next() == nil)
            let request = server.receivedRequests[0]
            #expect(request.header("accept") == "text/event-stream")
            #expect(request.header("last-event-id") == "41")
        }
    }

    @Test func eventDataPastTheLimitThrowsATypedError() async throws {
        let body = String(repeating: "data: 0123456789\n", count: 200) + "\n"
        try await withClient(handler: { _ in .text(body, contentType: "text/event-stream") }) { client, _ in
            let stream = try await client.stream(.get, "events")
            let error = await #expect(throws: RequestKitError.self) {
                for try await _ in stream.serverSentEvents(maximumLength: 1024) {}
            }
            #expect(error?.code == .bodyTooLarge)
        }
    }

    @Test func stoppingEarlyClosesTheStreamAndTheClientStaysUsable() async throws {
        try await withClient(handler: { request in
            if request.path == "/endless" {
                return TestResponse(
                    headers: [("Content-Type", "text/plain")],
                    body: .generated(byte: 0x0A, count: 1 << 30)
                )
            }
            return .json(#"{"ok": true}"#)
        }) { client, _ in
            var seen = 0
            for try await _ in try await client.stream(.get, "endless").lines() {
                seen += 1
                if seen == 3 { break }
            }
            #expect(seen == 3)
            let response = try await client.get("after")
            #expect(response.value.json == ["ok": true])
        }
    }
}
