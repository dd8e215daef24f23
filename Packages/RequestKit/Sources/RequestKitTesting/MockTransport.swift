public import Foundation
public import HTTPTypes
public import RequestKit
import Synchronization

/// A transport that answers from routes and fixture files instead of the network, for users' own tests.
///
/// Routes match a method and a path (the last segments of the URL path, `*` matching any one segment); the most
/// recently added matching route answers. A route can answer after a delay (cancellable), fail with an error, or
/// compute a ``TestResponse`` from the request, so the same handlers serve a ``TestServer`` and a mock.
///
/// Without a matching route, a fixture file named after the request's operation with the extension `.mock`
/// (`vehicles.get.mock` for the endpoint named `vehicles.get`) in ``fixturesDirectory``
/// answers `200` with its contents (JSON when it starts with `{` or `[`, text otherwise). Anything else gets a
/// `404` naming the request, so a missing mock is visible in the test failure.
///
/// ```swift
/// let mock = MockTransport()
/// mock.on(.get, "vehicles/*") { _ in .json(#"{"plate": "AB 7", "modelYear": 2021}"#) }
/// mock.fail(.delete, "vehicles/*", with: RequestKitError(.transportFailed, subject: "x", reason: "offline"))
/// let client = RequestClient(environment: environment, transport: mock)
/// ```
public final class MockTransport: Transport {
    private struct Route: Sendable {
        var method: HTTPRequest.Method?
        var segments: [Substring]
        var delay: Duration?
        var answer: @Sendable (TestRequest) async throws -> TestResponse
    }

    private struct State {
        var routes: [Route] = []
        var requests: [ClientRequest] = []
    }

    /// The folder searched for `<operation>.mock` fixture files, if any.
    public let fixturesDirectory: URL?
    private let state = Mutex(State())

    /// Creates a mock with no routes, answering from fixture files in `fixturesDirectory` when given.
    public init(fixturesDirectory: URL? = nil) {
        self.fixturesDirectory = fixturesDirectory
    }

    /// Every request sent so far, in order.
    public var requests: [ClientRequest] { state.withLock { $0.requests } }

    /// Answers requests matching `method` (any method when `nil`) and `path` with `respond`, after `delay` if given.
    public func on(
        _ method: HTTPRequest.Method?,
        _ path: String,
        delay: Duration? = nil,
        respond: @escaping @Sendable (TestRequest) async throws -> TestResponse
    ) {
        let route = Route(method: method, segments: Self.segments(path), delay: delay, answer: respond)
        state.withLock { $0.routes.append(route) }
    }

    /// Fails requests matching `method` and `path` with `error`.
    public func fail(_ method: HTTPRequest.Method?, _ path: String, with error: any Error & Sendable) {
        on(method, path) { _ in throw error }
    }

    public func send(_ request: ClientRequest) async throws -> ClientResponse {
        let route: Route? = state.withLock { state in
            state.requests.append(request)
            let segments = Self.segments(request.url.path)
            return state.routes.last { route in
                (route.method == nil || route.method == request.method) && Self.matches(route.segments, segments)
            }
        }
        let testRequest = try await Self.testRequest(from: request)
        let response: TestResponse
        if let route {
            if let delay = route.delay {
                try await Task.sleep(for: delay)
            }
            response = try await route.answer(testRequest)
        } else if let fixture = fixture(for: request.operation) {
            let isJSON = fixture.first.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } ?? false
            response = TestResponse(
                status: 200,
                headers: [("Content-Type", isJSON ? "application/json" : "text/plain; charset=utf-8")],
                body: .data(fixture)
            )
        } else {
            response = .text("no mock for \(request.method.rawValue) \(request.url.path)", status: 404)
        }
        guard !response.closesConnection else {
            throw RequestKitError.connectionLost(
                request.url.absoluteString,
                operation: request.operation,
                url: request.url
            )
        }
        return Self.clientResponse(from: response, url: request.url)
    }

    private func fixture(for operation: String) -> Data? {
        guard let fixturesDirectory else { return nil }
        let name = operation.replacingOccurrences(of: "/", with: "_")
        return try? Data(contentsOf: fixturesDirectory.appending(path: "\(name).mock"))
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/") } ?? []
    }

    private static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        guard pattern.count <= path.count else { return false }
        return zip(pattern, path.suffix(pattern.count)).allSatisfy { $0 == "*" || $0 == $1 }
    }

    private static func testRequest(from request: ClientRequest) async throws -> TestRequest {
        var body = Data()
        if let requestBody = request.body {
            for try await chunk in requestBody.chunks() { body.append(chunk) }
        }
        let target = request.url.query.map { "\(request.url.path)?\($0)" } ?? request.url.path
        return TestRequest(
            method: request.method.rawValue,
            target: target,
            headers: request.headerFields.map { (name: $0.name.rawName, value: $0.value) },
            body: body
        )
    }

    private static func clientResponse(from response: TestResponse, url: URL) -> ClientResponse {
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let body: ClientResponse.Body
        switch response.body {
        case .data(let data):
            fields[.contentLength] = "\(data.count)"
            body = ClientResponse.Body(data: data)
        case .chunks(let chunks):
            body = ClientResponse.Body(
                AsyncThrowingStream<Data, any Error> { continuation in
                    for chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                }
            )
        case .generated(let byte, let count):
            fields[.contentLength] = "\(count)"
            let remaining = SerialCounter(count)
            body = ClientResponse.Body(
                AsyncThrowingStream<Data, any Error>(unfolding: {
                    let size = remaining.take(64 * 1024)
                    return size > 0 ? Data(repeating: byte, count: size) : nil
                })
            )
        case .stream(let chunks):
            body = ClientResponse.Body(chunks)
        case .stall(let prefix, let declaredLength):
            fields[.contentLength] = "\(declaredLength)"
            let sent = SerialCounter(1)
            body = ClientResponse.Body(
                AsyncThrowingStream<Data, any Error>(unfolding: {
                    if sent.take(1) == 1 { return prefix }
                    // Stalls like a silent server until the reading task is cancelled.
                    try await Task.sleep(for: .seconds(86_400 * 365))
                    return nil
                })
            )
        }
        return ClientResponse(
            status: HTTPResponse.Status(code: response.status),
            headerFields: fields,
            body: body,
            url: url
        )
    }
}

/// A countdown shared with a stream's unfolding closure.
final class SerialCounter: Sendable {
    private let remaining: Mutex<Int64>

    init(_ count: Int64) {
        remaining = Mutex(count)
    }

    /// Takes up to `limit` from the count and returns how much was taken.
    func take(_ limit: Int) -> Int {
        remaining.withLock { remaining in
            let taken = Int(min(Int64(limit), remaining))
            remaining -= Int64(taken)
            return taken
        }
    }
}
