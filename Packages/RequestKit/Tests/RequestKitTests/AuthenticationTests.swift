import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Lets tasks wait until `count` of them have arrived.
actor Barrier {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        self.count = count
    }

    func arrive() async {
        arrived += 1
        if arrived >= count {
            for waiter in waiting { waiter.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// A token service: counts refreshes, hands out `fresh-<n>`, or fails when told to.
final class TokenService: Sendable {
    let refreshes = LockedValue(0)
    let rejected = LockedValue<[String?]>([])
    let failing: Bool
    let gate: Signal?

    init(failing: Bool = false, gate: Signal? = nil) {
        self.failing = failing
        self.gate = gate
    }

    func refresh(_ rejected: String?) async throws -> String {
        if let gate { await gate.wait() }
        var number = 0
        refreshes.update {
            $0 += 1
            number = $0
        }
        self.rejected.update { $0.append(rejected) }
        if failing { throw TokenServiceDown() }
        return "fresh-\(number)"
    }
}

struct TokenServiceDown: Error {}

/// A client with `authenticator` (and optionally a retry policy and observers) on a mock transport.
func authenticatedClient(
    _ authenticator: any Authenticator,
    retryPolicy: RetryPolicy? = nil,
    observers: [any RequestObserver] = [],
    middleware: [any Middleware] = []
) throws -> (RequestClient, MockTransport) {
    let mock = MockTransport()
    var configuration = RequestClient.Configuration()
    configuration.authenticator = authenticator
    configuration.retryPolicy = retryPolicy
    configuration.observers = observers
    configuration.middleware = middleware
    let environment = try ServiceEnvironment(name: "mock", baseURL: "http://127.0.0.1:9/")
    return (RequestClient(environment: environment, transport: mock, configuration: configuration), mock)
}

/// 401 unless the request carries `Bearer <token>`.
func requiring(_ token: String) -> @Sendable (TestRequest) -> TestResponse {
    { request in request.header("authorization") == "Bearer \(token)" ? .text("ok") : .status(401) }
}

struct AuthenticationTests {
    @Test func aRejectedTokenIsRefreshedAndTheRequestReplayedOnce() async throws {
        let tokens = TokenService()
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) }
        )
        mock.on(.get, "vehicles", respond: requiring("fresh-1"))
        let response = try await client.get("vehicles")
        #expect(response.status.code == 200)
        #expect(mock.requests.map { $0.headerFields[.authorization] } == ["Bearer stale", "Bearer fresh-1"])
        #expect(tokens.refreshes.value == 1)
        #expect(tokens.rejected.value == ["stale"])
    }

    @Test func withoutAnInitialTokenTheFirstRequestRefreshesFirst() async throws {
        let tokens = TokenService()
        let (client, mock) = try authenticatedClient(BearerTokenAuthenticator { try await tokens.refresh($0) })
        mock.on(.get, "vehicles", respond: requiring("fresh-1"))
        _ = try await client.get("vehicles")
        #expect(mock.requests.count == 1)
        #expect(tokens.rejected.value == [nil])
    }

    @Test func aHundredConcurrentRejectionsCauseOneRefreshAndAHundredReplays() async throws {
        let tokens = TokenService()
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) }
        )
        // Every stale request is answered only once all hundred have arrived, so all hundred are rejected together.
        let barrier = Barrier(count: 100)
        mock.on(.get, "vehicles/*") { request in
            if request.header("authorization") == "Bearer stale" {
                await barrier.arrive()
                return .status(401)
            }
            return requiring("fresh-1")(request)
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask { try await client.get("vehicles/\(index)").status.code }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(tokens.refreshes.value == 1)
        let sent = mock.requests.map { $0.headerFields[.authorization] }
        #expect(sent.filter { $0 == "Bearer stale" }.count == 100)
        #expect(sent.filter { $0 == "Bearer fresh-1" }.count == 100)
    }

    @Test func aFailedRefreshFailsEveryWaiterOnceWithoutLooping() async throws {
        let gate = Signal()
        let tokens = TokenService(failing: true, gate: gate)
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) }
        )
        let barrier = Barrier(count: 10)
        let rejections = LockedValue(0)
        mock.on(.get, "vehicles/*") { _ in
            await barrier.arrive()
            rejections.update { $0 += 1 }
            return .status(401)
        }
        let errors = LockedValue<[RequestKitError]>([])
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                group.addTask {
                    do {
                        _ = try await client.get("vehicles/\(index)")
                    } catch let error as RequestKitError {
                        errors.update { $0.append(error) }
                    } catch {}
                }
            }
            // The refresh fails only once every request was rejected and had the time to wait for it.
            group.addTask {
                while rejections.value < 10 { await Task.yield() }
                for _ in 0..<1_000 { await Task.yield() }
                gate.fire()
            }
        }
        #expect(errors.value.count == 10)
        #expect(errors.value.allSatisfy { $0.code == .authenticationFailed && $0.underlying is TokenServiceDown })
        #expect(tokens.refreshes.value == 1)
        #expect(mock.requests.count == 10)
    }

    @Test func aReplayRejectedAgainFailsWithoutASecondRefresh() async throws {
        let tokens = TokenService()
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) }
        )
        mock.on(.get, "vehicles") { _ in .status(401) }
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.code == .authenticationFailed)
        #expect(error.status == 401)
        #expect(tokens.refreshes.value == 1)
        #expect(mock.requests.count == 2)
    }

    @Test func aTokenRefreshedMeanwhileIsUsedWithoutASecondRefresh() async throws {
        let tokens = TokenService()
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) }
        )
        let slowMayAnswer = Signal()
        mock.on(.get, "slow") { request in
            if request.header("authorization") == "Bearer stale" {
                await slowMayAnswer.wait()
                return .status(401)
            }
            return requiring("fresh-1")(request)
        }
        mock.on(.get, "fast", respond: requiring("fresh-1"))
        let slow = Task { try await client.get("slow") }
        while mock.requests.isEmpty { await Task.yield() }
        // The fast request is rejected, refreshes and succeeds while the slow one still carries the stale token.
        _ = try await client.get("fast")
        slowMayAnswer.fire()
        #expect(try await slow.value.status.code == 200)
        #expect(tokens.refreshes.value == 1)
        let slowRequests = mock.requests.filter { $0.url.path == "/slow" }
        #expect(slowRequests.map { $0.headerFields[.authorization] } == ["Bearer stale", "Bearer fresh-1"])
    }

    @Test func theRejectionRuleCanBeChanged() async throws {
        let tokens = TokenService()
        let authenticator = BearerTokenAuthenticator(
            token: "stale",
            isRejected: { $0.status.code == 403 || $0.headerFields[.wwwAuthenticate] != nil }
        ) { try await tokens.refresh($0) }
        let (client, mock) = try authenticatedClient(authenticator)
        mock.on(.get, "vehicles") { request in
            request.header("authorization") == "Bearer fresh-1" ? .text("ok") : .status(403)
        }
        _ = try await client.get("vehicles")
        #expect(tokens.refreshes.value == 1)
        // A 401 is not a rejection under this rule.
        mock.on(.get, "trucks") { _ in .status(401) }
        await #expect(throws: RequestKitError.self) { try await client.get("trucks") }
        #expect(tokens.refreshes.value == 1)
    }

    @Test func aRefreshedAndReplayedRequestIsOneAttempt() async throws {
        let tokens = TokenService()
        let recorder = AttemptRecorder()
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) },
            retryPolicy: quickPolicy(),
            observers: [recorder]
        )
        let script = Script([.status(503), .status(401), .text("ok")])
        mock.on(.get, "vehicles") { _ in script.next() }
        _ = try await client.get("vehicles")
        // Attempt 1: 503 (retried); attempt 2: 401, refresh, replay: 200.
        #expect(recorder.attempts.value.map(\.attempt) == [1, 2])
        #expect(recorder.attempts.value.map(\.status) == [503, 200])
        #expect(mock.requests.map(\.attempt) == [1, 2, 2])
        #expect(tokens.refreshes.value == 1)
    }

    @Test func tokensNeverReachLogs() async throws {
        let logs = InMemoryLogHandler.keepingEverything()
        let logger = Logger(label: "test") { _ in logs }
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale-secret") { _ in "fresh-secret" },
            retryPolicy: quickPolicy(),
            observers: [LoggingObserver(logger: logger)]
        )
        let script = Script([.status(503), .text("ok")])
        mock.on(.get, "vehicles") { request in
            request.header("authorization") == "Bearer fresh-secret" ? script.next() : .status(401)
        }
        _ = try await client.get("vehicles")
        #expect(!logs.entries.isEmpty)
        #expect(!logs.entries.contains { "\($0.message) \($0.metadata)".contains("secret") })
        let fields = mock.requests.compactMap { $0.headerFields.first { $0.name == .authorization } }
        #expect(fields.count == 3)
        #expect(fields.allSatisfy { $0.indexingStrategy == .disallow })
    }

    @Test func decoratorsRunInsideAuthenticationAndSeeTheCredential() async throws {
        let seen = LockedValue<[String?]>([])
        let decorator = RequestDecorator { request in
            seen.update { $0.append(request.headerFields[.authorization]) }
        }
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { _ in "fresh" },
            middleware: [decorator]
        )
        mock.on(.get, "vehicles", respond: requiring("fresh"))
        _ = try await client.get("vehicles")
        #expect(seen.value == ["Bearer stale", "Bearer fresh"])
    }

    @Test func aOneShotBodyIsNotReplayedAfterARejection() async throws {
        let tokens = TokenService()
        let (client, mock) = try authenticatedClient(
            BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) }
        )
        mock.on(.post, "vehicles", respond: requiring("fresh-1"))
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.yield(Data("{}".utf8))
        continuation.finish()
        let error = try await #require(throws: RequestKitError.self) {
            try await client.makeRequest(.post, "vehicles")
                .body(.stream(length: 2, once: stream), contentType: "application/json").submit()
        }
        #expect(error.code == .invalidRequest)
        #expect(error.reason.contains("one-shot"))
        #expect(mock.requests.count == 1)
    }

    @Test func aServerRejectingUntilTheTokenIsRefreshedOverLoopback() async throws {
        let tokens = TokenService()
        var configuration = RequestClient.Configuration()
        configuration.authenticator = BearerTokenAuthenticator(token: "stale") { try await tokens.refresh($0) }
        configuration.retryPolicy = quickPolicy()
        try await withClient(configuration: configuration, handler: requiring("fresh-1")) { client, server in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask { _ = try await client.get("vehicles") }
                }
                try await group.waitForAll()
            }
            #expect(tokens.refreshes.value == 1)
            let fresh = server.receivedRequests.filter { $0.header("authorization") == "Bearer fresh-1" }
            #expect(fresh.count == 20)
        }
    }
}
