import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Records every attempt and request an observer hears of.
final class AttemptRecorder: RequestObserver {
    let attempts = LockedValue<[RequestAttemptFinished]>([])
    let replays = LockedValue<[RequestReplayed]>([])
    let finished = LockedValue<[RequestFinished]>([])

    func requestStarted(_ event: RequestStarted) {}
    func requestAttemptFinished(_ event: RequestAttemptFinished) { attempts.update { $0.append(event) } }
    func requestReplayed(_ event: RequestReplayed) { replays.update { $0.append(event) } }
    func requestFinished(_ event: RequestFinished) { finished.update { $0.append(event) } }
}

/// Answers from a list, one response per request, repeating the last.
final class Script: Sendable {
    private let responses: LockedValue<[TestResponse]>

    init(_ responses: [TestResponse]) {
        self.responses = LockedValue(responses)
    }

    func next() -> TestResponse {
        var answer = TestResponse.status(500)
        responses.update { responses in
            answer = responses.count > 1 ? responses.removeFirst() : responses[0]
        }
        return answer
    }
}

/// A policy with millisecond backoffs and no jitter.
func quickPolicy(attempts: Int = 3, deadline: Duration? = nil) -> RetryPolicy {
    RetryPolicy(
        maximumAttempts: attempts,
        initialBackoff: .milliseconds(1),
        maximumBackoff: .milliseconds(5),
        deadline: deadline,
        jitter: .none
    )
}

/// A client with `policy` on a mock transport.
func mockClient(
    _ policy: RetryPolicy?,
    observers: [any RequestObserver] = [],
    middleware: [any Middleware] = []
) throws -> (RequestClient, MockTransport) {
    let mock = MockTransport()
    var configuration = RequestClient.Configuration()
    configuration.retryPolicy = policy
    configuration.observers = observers
    configuration.middleware = middleware
    let environment = try ServiceEnvironment(name: "mock", baseURL: "http://127.0.0.1:9/")
    return (RequestClient(environment: environment, transport: mock, configuration: configuration), mock)
}

let idempotencyKey = HTTPField.Name("Idempotency-Key")!

struct RetryTests {
    // MARK: - Decisions, driven through a mock transport

    @Test func aServiceUnavailableIsRetriedUntilItSucceeds() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        let script = Script([.status(503), .status(503), .text("ok")])
        mock.on(.get, "vehicles") { _ in script.next() }
        let response = try await client.get("vehicles")
        #expect(response.status.code == 200)
        #expect(mock.requests.map(\.attempt) == [1, 2, 3])
    }

    @Test(arguments: [408, 429, 502, 503, 504])
    func theTransientStatusesAreRetried(status: Int) async throws {
        let (client, mock) = try mockClient(quickPolicy(attempts: 2))
        let script = Script([.status(status), .text("ok")])
        mock.on(.get, "vehicles") { _ in script.next() }
        _ = try await client.get("vehicles")
        #expect(mock.requests.count == 2)
    }

    @Test func otherStatusesAreNotRetried() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        mock.on(.get, "vehicles") { _ in .status(500) }
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.status == 500)
        #expect(mock.requests.count == 1)
    }

    @Test func theLastResponseIsReportedWhenTheAttemptsRunOut() async throws {
        let (client, mock) = try mockClient(quickPolicy(attempts: 3))
        mock.on(.get, "vehicles") { _ in .text("still down", status: 503) }
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.code == .unacceptableStatus)
        #expect(error.status == 503)
        #expect(mock.requests.count == 3)
    }

    @Test func theStatusesAndErrorsRetriedAreConfigurable() async throws {
        var policy = quickPolicy()
        policy.retryableStatuses = [500]
        policy.retriesError = { $0.code == .transportFailed }
        let (client, mock) = try mockClient(policy)
        let script = Script([.status(500), .text("ok")])
        mock.on(.get, "vehicles") { _ in script.next() }
        _ = try await client.get("vehicles")
        #expect(mock.requests.count == 2)

        let failures = Script([.status(503)])
        mock.on(.get, "trucks") { _ in failures.next() }
        _ = try? await client.get("trucks")
        #expect(mock.requests.count == 3)
    }

    @Test func transientErrorsAreRetried() async throws {
        let errors: [RequestKitError] = [
            RequestKitError(.connectionRefused, subject: "mock", reason: "refused"),
            RequestKitError(.timedOut, subject: "mock", reason: "the attempt timed out"),
            .connectionLost("mock"),
        ]
        for error in errors {
            let (client, mock) = try mockClient(quickPolicy(attempts: 2))
            let failed = LockedValue(false)
            mock.on(.get, "vehicles") { _ in
                var first = false
                failed.update {
                    first = !$0; $0 = true
                }
                if first { throw error }
                return .text("ok")
            }
            _ = try await client.get("vehicles")
            #expect(mock.requests.count == 2, "\(error.code)")
        }
    }

    @Test func otherTransportFailuresAreNotRetried() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        mock.fail(.get, "vehicles", with: RequestKitError(.transportFailed, subject: "mock", reason: "broken"))
        await #expect(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(mock.requests.count == 1)
    }

    @Test func aPostIsNotRetriedByDefault() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        mock.on(.post, "vehicles") { _ in .status(503) }
        let closing = Script([.closeConnection, .text("ok")])
        mock.on(.patch, "vehicles/1") { _ in closing.next() }
        await #expect(throws: RequestKitError.self) { try await client.post("vehicles") }
        let error = try await #require(throws: RequestKitError.self) { try await client.patch("vehicles/1") }
        #expect(error.isConnectionLost)
        #expect(mock.requests.count == 2)
        #expect(mock.requests.allSatisfy { $0.headerFields[idempotencyKey] == nil })
    }

    @Test func aPostOptedInPerRequestKeepsOneIdempotencyKeyAcrossAttempts() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        let script = Script([.status(503), .closeConnection, .status(201)])
        mock.on(.post, "vehicles") { _ in script.next() }
        let response = try await client.makeRequest(.post, "vehicles").retry(.withIdempotencyKey).submit()
        #expect(response.status.code == 201)
        let keys = mock.requests.map { $0.headerFields[idempotencyKey] }
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1)
        #expect(UUID(uuidString: keys[0] ?? "") != nil)
    }

    @Test func aPolicyCanAddIdempotencyKeysToEveryPost() async throws {
        var policy = quickPolicy()
        policy.addsIdempotencyKeys = true
        let (client, mock) = try mockClient(policy)
        let script = Script([.status(503), .status(201)])
        mock.on(.post, "vehicles") { _ in script.next() }
        _ = try await client.post("vehicles")
        #expect(mock.requests.count == 2)
        #expect(mock.requests[0].headerFields[idempotencyKey] == mock.requests[1].headerFields[idempotencyKey])
        // A GET needs no key.
        mock.on(.get, "vehicles") { _ in .text("ok") }
        _ = try await client.get("vehicles")
        #expect(mock.requests[2].headerFields[idempotencyKey] == nil)
    }

    @Test func aPostWithItsOwnIdempotencyKeyIsRetriedWithIt() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        let script = Script([.status(503), .status(201)])
        mock.on(.post, "vehicles") { _ in script.next() }
        _ = try await client.makeRequest(.post, "vehicles").header(idempotencyKey, "order-7").submit()
        #expect(mock.requests.map { $0.headerFields[idempotencyKey] } == ["order-7", "order-7"])
    }

    @Test func aRefusedConnectionIsRetriedForAnyMethodSinceNothingWasSent() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        let refused = LockedValue(false)
        mock.on(.post, "vehicles") { _ in
            var first = false
            refused.update {
                first = !$0; $0 = true
            }
            if first { throw RequestKitError(.connectionRefused, subject: "mock", reason: "refused") }
            return .status(201)
        }
        _ = try await client.post("vehicles")
        #expect(mock.requests.count == 2)
    }

    @Test func aRequestCanOptOut() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        mock.on(.get, "vehicles") { _ in .status(503) }
        await #expect(throws: RequestKitError.self) {
            try await client.makeRequest(.get, "vehicles").retry(.disabled).submit()
        }
        #expect(mock.requests.count == 1)
        let endpoint = Endpoint(.get, "vehicles", as: EmptyResponse.self).retry(.disabled)
        await #expect(throws: RequestKitError.self) { try await client.send(endpoint) }
        #expect(mock.requests.count == 2)
    }

    // MARK: - Waits

    @Test func aRetryAfterLongerThanTheMaximumBackoffEndsTheRetriesWithTheAnswerAtHand() async throws {
        let recorder = AttemptRecorder()
        let (client, mock) = try mockClient(quickPolicy(attempts: 2), observers: [recorder])
        let script = Script([TestResponse(status: 503, headers: [("Retry-After", "120")]), .text("ok")])
        mock.on(.get, "vehicles") { _ in script.next() }
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.status == 503)
        #expect(mock.requests.count == 1)
        #expect(recorder.attempts.value.map(\.retryDelay) == [nil])
    }

    @Test func aRetryAfterIsAFloorUnderTheBackoff() async throws {
        let recorder = AttemptRecorder()
        var policy = quickPolicy(attempts: 3)
        policy.maximumBackoff = .seconds(1)
        let (client, mock) = try mockClient(policy, observers: [recorder])
        let script = Script([
            TestResponse(status: 503, headers: [("Retry-After", "0")]),
            TestResponse(status: 429, headers: [("Retry-After", "1")]),
            .text("ok"),
        ])
        mock.on(.get, "vehicles") { _ in script.next() }
        let started = ContinuousClock.now
        _ = try await client.get("vehicles")
        // The backoff where the server asks for less; the server's wait where it asks for more.
        #expect(recorder.attempts.value.map(\.retryDelay) == [.milliseconds(1), .seconds(1), nil])
        #expect(ContinuousClock.now - started >= .seconds(1))
    }

    @Test func retryAfterAsAnHTTPDateIsHonoured() async throws {
        let recorder = AttemptRecorder()
        var policy = quickPolicy(attempts: 3)
        policy.maximumBackoff = .seconds(5)
        let (client, mock) = try mockClient(policy, observers: [recorder])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let soon = formatter.string(from: Date().addingTimeInterval(2))
        let past = formatter.string(from: Date().addingTimeInterval(-3_600))
        let script = Script([
            TestResponse(status: 503, headers: [("Retry-After", soon)]),
            TestResponse(status: 429, headers: [("Retry-After", past)]),
            .text("ok"),
        ])
        mock.on(.get, "vehicles") { _ in script.next() }
        _ = try await client.get("vehicles")
        let delays = recorder.attempts.value.map(\.retryDelay)
        try #require(delays.count == 3)
        // The date is whole seconds: one to two seconds ahead.
        let first = try #require(delays[0])
        #expect(first > .milliseconds(900) && first <= .seconds(2), "\(first)")
        // A date in the past asks for no wait: the backoff stands.
        #expect(delays[1] == .milliseconds(2))
        #expect(delays[2] == nil)
    }

    @Test func aRetryAfterPastTheDeadlineEndsTheRetries() async throws {
        var policy = quickPolicy(deadline: .milliseconds(500))
        policy.maximumBackoff = .seconds(60)
        let (client, mock) = try mockClient(policy)
        mock.on(.get, "vehicles") { _ in TestResponse(status: 503, headers: [("Retry-After", "30")]) }
        let started = ContinuousClock.now
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.status == 503)
        #expect(mock.requests.count == 1)
        #expect(ContinuousClock.now - started < .seconds(20), "it waited for the Retry-After of 30 seconds")
    }

    @Test func eachAttemptGetsAtMostTheTimeLeftBeforeTheDeadline() async throws {
        let (client, mock) = try mockClient(quickPolicy(deadline: .seconds(2)))
        mock.on(.get, "vehicles") { _ in .text("ok") }
        _ = try await client.makeRequest(.get, "vehicles").timeouts(Timeouts(perAttempt: .seconds(30))).submit()
        let perAttempt = try #require(mock.requests.first?.timeouts.perAttempt)
        #expect(perAttempt <= .seconds(2))
    }

    @Test func backoffsGrowExponentiallyUpToTheCapAndJitterStaysBelowThem() async throws {
        let recorder = AttemptRecorder()
        let policy = RetryPolicy(
            maximumAttempts: 5,
            initialBackoff: .milliseconds(1),
            maximumBackoff: .milliseconds(4),
            jitter: .none
        )
        let (client, mock) = try mockClient(policy, observers: [recorder])
        mock.on(.get, "vehicles") { _ in .status(503) }
        _ = try? await client.get("vehicles")
        let expected: [Duration?] = [.milliseconds(1), .milliseconds(2), .milliseconds(4), .milliseconds(4), nil]
        #expect(recorder.attempts.value.map(\.retryDelay) == expected)

        let jittered = AttemptRecorder()
        var spread = policy
        spread.jitter = .full
        let (other, otherMock) = try mockClient(spread, observers: [jittered])
        otherMock.on(.get, "vehicles") { _ in .status(503) }
        _ = try? await other.get("vehicles")
        for (delay, limit) in zip(jittered.attempts.value.compactMap(\.retryDelay), expected.compactMap { $0 }) {
            #expect(delay >= .zero && delay <= limit)
        }
    }

    @Test func cancellingDuringABackoffEndsAtOnce() async throws {
        let policy = RetryPolicy(
            maximumAttempts: 3,
            initialBackoff: .seconds(600),
            maximumBackoff: .seconds(600),
            jitter: .none
        )
        let (client, mock) = try mockClient(policy)
        let answered = Signal()
        mock.on(.get, "vehicles") { _ in
            answered.fire()
            return .status(503)
        }
        let task = Task { try await client.get("vehicles") }
        await answered.wait()
        let started = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - started < .seconds(60), "it waited out the backoff of 600 seconds")
        #expect(throws: RequestKitError.self) { try result.get() }
        if case .failure(let error as RequestKitError) = result { #expect(error.code == .cancelled) }
        #expect(mock.requests.count == 1)
    }

    // MARK: - Bodies

    @Test func bodiesFromDataAndStreamFactoriesAreReplayed() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        let bodies = LockedValue<[String]>([])
        let script = Script([.status(503), .text("ok")])
        mock.on(.put, "vehicles/*") { request in
            bodies.update { $0.append(request.text) }
            return script.next()
        }
        let stream = ClientRequest.Body.stream(length: 5) {
            AsyncThrowingStream { continuation in
                continuation.yield(Data("he".utf8))
                continuation.yield(Data("llo".utf8))
                continuation.finish()
            }
        }
        _ = try await client.makeRequest(.put, "vehicles/1").body(stream, contentType: "text/plain").submit()
        #expect(bodies.value == ["hello", "hello"])
    }

    @Test func aOneShotStreamBodyFailsTheRetrySayingWhy() async throws {
        let (client, mock) = try mockClient(quickPolicy())
        mock.on(.put, "vehicles/*") { _ in .status(503) }
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.yield(Data("once".utf8))
        continuation.finish()
        let body = ClientRequest.Body.stream(length: 4, once: stream)
        #expect(!body.isReplayable)
        let error = try await #require(throws: RequestKitError.self) {
            try await client.makeRequest(.put, "vehicles/1").body(body, contentType: "text/plain").submit()
        }
        #expect(error.code == .invalidRequest)
        #expect(error.reason.contains("one-shot"))
        #expect(error.status == 503)
        #expect(mock.requests.count == 1)
    }

    // MARK: - Observers

    @Test func observersSeeEveryAttemptWithItsNumber() async throws {
        let recorder = AttemptRecorder()
        let (client, mock) = try mockClient(quickPolicy(), observers: [recorder])
        let script = Script([.status(502), .closeConnection, .status(503), .text("ok")])
        mock.on(.get, "vehicles") { _ in script.next() }
        _ = try await client.get("vehicles")
        let attempts = recorder.attempts.value
        #expect(attempts.map(\.attempt) == [1, 2, 3])
        #expect(attempts.map(\.status) == [502, 503, 200])
        #expect(attempts.map { $0.retryDelay == nil } == [false, false, true])
        // The closed connection of the second attempt was no attempt of its own: the GET went out again within it.
        let replays = recorder.replays.value
        #expect(replays.map(\.attempt) == [2])
        #expect(replays.first?.error.isConnectionLost == true)
        #expect(mock.requests.count == 4)
        let finished = recorder.finished.value
        #expect(finished.count == 1)
        #expect(Set(attempts.map(\.id) + replays.map(\.id)) == [finished[0].id])
    }

    @Test func logsAndMetricsCountRetriesWithoutSecrets() async throws {
        let logs = InMemoryLogHandler.keepingEverything()
        let logger = Logger(label: "test") { _ in logs }
        let metrics = RecordingMetrics()
        let (client, mock) = try mockClient(
            quickPolicy(),
            observers: [LoggingObserver(logger: logger), MetricsObserver(factory: metrics)]
        )
        let script = Script([.status(503), .text("ok")])
        mock.on(.get, "vehicles") { _ in script.next() }
        _ = try await client.makeRequest(.get, "vehicles").header(.authorization, "Bearer s3cret").submit()
        let retries = logs.entries.filter { $0.message.description == "request attempt failed, retrying" }
        #expect(retries.count == 1)
        #expect(retries.first?.metadata["request.attempt"] == "1")
        #expect(!logs.entries.contains { "\($0.metadata)".contains("s3cret") })
        #expect(metrics.values.value["requestkit.retries operation=GET vehicles method=GET status=503"] == [1])
    }

    // MARK: - Over loopback

    @Test func aServiceUnavailableWithRetryAfterIsWaitedForOverLoopback() async throws {
        var configuration = RequestClient.Configuration()
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 2, maximumBackoff: .seconds(5), jitter: .none)
        let script = Script([TestResponse(status: 503, headers: [("Retry-After", "1")]), .text("ok")])
        try await withClient(configuration: configuration, handler: { _ in script.next() }) { client, server in
            let started = ContinuousClock.now
            let response = try await client.get("vehicles")
            #expect(response.status.code == 200)
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func aGetOnAClosedConnectionGoesOutAgainWithoutARetryPolicy() async throws {
        let recorder = AttemptRecorder()
        var configuration = RequestClient.Configuration()
        configuration.observers = [recorder]
        let script = Script([.closeConnection, .text("ok")])
        try await withClient(configuration: configuration, handler: { _ in script.next() }) { client, server in
            let response = try await client.get("vehicles")
            #expect(response.status.code == 200)
            #expect(server.receivedRequests.count == 2)
            #expect(recorder.replays.value.count == 1)
            #expect(recorder.attempts.value.isEmpty, "no retry policy, so no attempts")
        }
    }

    @Test func aPostOnAClosedConnectionIsNotSentAgainWithoutARetryPolicy() async throws {
        let script = Script([.closeConnection, .text("ok")])
        try await withClient(handler: { _ in script.next() }) { client, server in
            let error = try await #require(throws: RequestKitError.self) { try await client.post("vehicles") }
            #expect(error.isConnectionLost)
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func aStreamTheServerRefusedGoesOutAgainWhateverTheMethod() async throws {
        let recorder = AttemptRecorder()
        let (client, mock) = try mockClient(nil, observers: [recorder])
        let refused = LockedValue(0)
        mock.on(.post, "vehicles") { _ in
            refused.update { $0 += 1 }
            if refused.value <= 2 { throw RequestKitError.notProcessed("mock") }
            return .status(201)
        }
        let response = try await client.post("vehicles")
        #expect(response.status.code == 201)
        #expect(mock.requests.count == 3)
        #expect(recorder.replays.value.map(\.replay) == [1, 2])
        #expect(recorder.replays.value.allSatisfy { $0.error.wasNotProcessed })
    }

    @Test func aRequestTheServerKeepsRefusingFailsAfterTheLastReplay() async throws {
        let (client, mock) = try mockClient(nil)
        mock.fail(.get, "vehicles", with: RequestKitError.notProcessed("mock"))
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.wasNotProcessed)
        #expect(mock.requests.count == 1 + 4)
    }

    @Test func aConnectionClosedBeforeTheResponseIsRetriedOverLoopback() async throws {
        var configuration = RequestClient.Configuration()
        configuration.retryPolicy = quickPolicy()
        let script = Script([.closeConnection, .text("ok")])
        try await withClient(configuration: configuration, handler: { _ in script.next() }) { client, server in
            let response = try await client.get("vehicles")
            #expect(response.status.code == 200)
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func aPostOnAClosedConnectionIsNotRetriedOverLoopback() async throws {
        var configuration = RequestClient.Configuration()
        configuration.retryPolicy = quickPolicy()
        let script = Script([.closeConnection, .text("ok")])
        try await withClient(configuration: configuration, handler: { _ in script.next() }) { client, server in
            let error = try await #require(throws: RequestKitError.self) { try await client.post("vehicles") }
            #expect(error.isConnectionLost)
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func theBodyOfARetriedStatusIsDrainedSoTheConnectionIsReused() async throws {
        var configuration = RequestClient.Configuration()
        configuration.retryPolicy = quickPolicy()
        let script = Script([.text(String(repeating: "x", count: 4_096), status: 503), .text("ok")])
        try await withClient(configuration: configuration, handler: { _ in script.next() }) { client, server in
            _ = try await client.get("vehicles")
            #expect(server.receivedRequests.count == 2)
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test func aServerThatComesUpIsReachedAfterRefusedConnections() async throws {
        // A port where nothing listens: a server is started and stopped there. It is taken below the kernel's
        // ephemeral range (32768 and up by default), where the sockets of the tests running alongside (servers on
        // port 0, the source ports of their connections) would take it back before the server below comes up.
        var port = 0
        for candidate in (0..<50).map({ _ in Int.random(in: 20_000..<32_000) }) {
            guard let probe = try? await TestServer.start(port: candidate, handler: { _ in .status(200) }) else {
                continue
            }
            port = probe.port
            try await probe.shutdown()
            break
        }
        try #require(port != 0, "no free port found below the ephemeral range")

        let started = LockedValue<TestServer?>(nil)
        let recorder = AttemptRecorder()
        var configuration = RequestClient.Configuration()
        configuration.retryPolicy = quickPolicy(attempts: 3)
        configuration.observers = [recorder]
        // Inside the retry middleware: the server comes up just before the second attempt.
        configuration.middleware = [
            StartingServer(port: port, started: started)
        ]
        var transportConfiguration = AsyncHTTPClientTransport.Configuration()
        transportConfiguration.retriesConnectionEstablishment = false
        try await AsyncHTTPClientTransport.withTransport(configuration: transportConfiguration) { transport in
            let environment = try ServiceEnvironment(name: "later", baseURL: "http://127.0.0.1:\(port)/")
            let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
            let response = try await client.get("vehicles")
            #expect(response.status.code == 200)
        }
        #expect(recorder.attempts.value.map { $0.error?.code } == [.connectionRefused, nil])
        let server = try #require(started.value)
        #expect(server.receivedRequests.count == 1)
        try await server.shutdown()
    }
}

/// Starts a test server on `port` before the second attempt passes.
struct StartingServer: Middleware {
    let port: Int
    let started: LockedValue<TestServer?>

    func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        if request.attempt == 2 {
            let server = try await TestServer.start(port: port, handler: { _ in .text("up") })
            started.value = server
        }
        return try await next(request)
    }
}
