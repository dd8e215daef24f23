import Foundation
import HTTPTypes
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Lets the tasks just started reach their first suspension (joining a shared request) without sleeping.
func letOthersRun() async {
    for _ in 0..<2_000 { await Task.yield() }
}

/// Counts started requests: a request told to observers goes on to the duplicate policy without suspending, so
/// once `count` have started and the others had a turn, all of them have joined.
final class StartCounter: RequestObserver {
    let started = LockedValue(0)

    func requestStarted(_ event: RequestStarted) { started.update { $0 += 1 } }
    func requestFinished(_ event: RequestFinished) {}

    func waitFor(_ count: Int) async {
        while started.value < count { await Task.yield() }
        await letOthersRun()
    }
}

/// The step that applies a ``DuplicatePolicy``: RequestKit's own, or ``CoalescingMiddleware``, the same written from
/// the public API alone. Every test runs against both. (A request that sets its own policy other than `allow` goes
/// through the built-in step as well, whatever the client's policy, so in `aRequestsOwnPolicyWinsOverTheClients` the
/// built-in step answers first in both cases.)
enum DuplicateStep: String, CaseIterable, CustomTestStringConvertible {
    case builtIn
    case publicAPI

    var testDescription: String { rawValue }

    /// Sets `policy` up in `configuration` through this step.
    func install(_ policy: DuplicatePolicy, in configuration: inout RequestClient.Configuration) {
        switch self {
        case .builtIn:
            configuration.duplicatePolicy = policy
        case .publicAPI:
            configuration.duplicatePolicy = .allow
            configuration.middleware.append(
                CoalescingMiddleware(policy: policy, maximumBodySize: configuration.maximumBodySize)
            )
        }
    }
}

/// A client with a duplicate policy on a mock transport.
func duplicateClient(
    _ policy: DuplicatePolicy,
    through step: DuplicateStep,
    maximumBodySize: Int = 64 * 1024 * 1024,
    counter: StartCounter? = nil
) throws -> (RequestClient, MockTransport) {
    let mock = MockTransport()
    var configuration = RequestClient.Configuration()
    configuration.observers = counter.map { [$0] } ?? []
    configuration.maximumBodySize = maximumBodySize
    step.install(policy, in: &configuration)
    let environment = try ServiceEnvironment(name: "mock", baseURL: "http://127.0.0.1:9/")
    return (RequestClient(environment: environment, transport: mock, configuration: configuration), mock)
}

/// The duplicate-request policy's tests, run against the built-in step and against its public-API twin.
struct DuplicateStepTests {
    @Test(arguments: DuplicateStep.allCases) func aHundredIdenticalGetsReachTheServerOnceOverLoopback(
        step: DuplicateStep
    ) async throws {
        var configuration = RequestClient.Configuration()
        step.install(.coalesce, in: &configuration)
        let counter = StartCounter()
        configuration.observers = [counter]
        let gate = Gate()
        let handler: TestServer.Handler = { _ in
            await gate.wait()
            return .json(#"{"plate": "AB 123", "modelYear": 2021}"#)
        }
        try await TestServer.withTestServer(handler: handler) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environment = try ServiceEnvironment(name: "test", baseURL: server.baseURL)
                let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
                let plates = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<100 {
                        group.addTask { try await client.get("vehicles/7", as: Plate.self).plate }
                    }
                    group.addTask {
                        await counter.waitFor(100)
                        gate.open()
                        return "AB 123"
                    }
                    var plates: [String] = []
                    for try await plate in group { plates.append(plate) }
                    return plates
                }
                #expect(plates.count == 101)
                #expect(plates.allSatisfy { $0 == "AB 123" })
                #expect(server.receivedRequests.count == 1)
            }
        }
    }

    @Test(arguments: DuplicateStep.allCases) func eachWaiterGetsItsOwnCopyOfTheBody(step: DuplicateStep) async throws {
        let (client, mock) = try duplicateClient(.coalesce, through: step)
        let gate = Gate()
        mock.on(.get, "report") { _ in
            await gate.wait()
            return .text("the report")
        }
        let url = try #require(URL(string: "http://127.0.0.1:9/report"))
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    // The lowest level: each caller reads its response body as a stream of its own.
                    let response = try await client.send(ClientRequest(method: .get, url: url))
                    var text = ""
                    for try await chunk in response.body { text += String(decoding: chunk, as: UTF8.self) }
                    return text
                }
            }
            group.addTask {
                while mock.requests.isEmpty { await Task.yield() }
                await letOthersRun()
                gate.open()
                return "the report"
            }
            var bodies: [String] = []
            for try await body in group { bodies.append(body) }
            return bodies
        }
        #expect(bodies == Array(repeating: "the report", count: 5))
        #expect(mock.requests.count == 1)
    }

    @Test(arguments: DuplicateStep.allCases) func aDuplicateIsRejectedWhileTheFirstIsInFlight(
        step: DuplicateStep
    ) async throws {
        let (client, mock) = try duplicateClient(.reject, through: step)
        let gate = Gate()
        mock.on(.get, "vehicles") { _ in
            await gate.wait()
            return .text("ok")
        }
        let first = Task { try await client.get("vehicles") }
        while mock.requests.isEmpty { await Task.yield() }
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.code == .redundantRequest)
        #expect(mock.requests.count == 1)
        gate.open()
        #expect(try await first.value.status.code == 200)
        // Once the first is done, the same request goes through again.
        _ = try await client.get("vehicles")
        #expect(mock.requests.count == 2)
    }

    @Test(arguments: DuplicateStep.allCases) func aRequestsOwnPolicyWinsOverTheClients(step: DuplicateStep) async throws
    {
        let (client, mock) = try duplicateClient(.allow, through: step)
        let gate = Gate()
        mock.on(.get, "vehicles") { _ in
            await gate.wait()
            return .text("ok")
        }
        let first = Task { try await client.makeRequest(.get, "vehicles").duplicatePolicy(.reject).submit() }
        while mock.requests.isEmpty { await Task.yield() }
        let error = try await #require(throws: RequestKitError.self) {
            try await client.makeRequest(.get, "vehicles").duplicatePolicy(.reject).submit()
        }
        #expect(error.code == .redundantRequest)
        gate.open()
        _ = try await first.value
    }

    @Test(arguments: DuplicateStep.allCases) func requestsThatDifferInWhatSelectsTheResponseAreNotShared(
        step: DuplicateStep
    ) async throws {
        let (client, mock) = try duplicateClient(.coalesce, through: step)
        let gate = Gate()
        mock.on(.get, "vehicles") { request in
            await gate.wait()
            return .text(request.header("authorization") ?? "none")
        }
        let variants: [(HTTPField.Name, String)] = [
            (.authorization, "Bearer alice"), (.authorization, "Bearer bob"), (.accept, "text/csv"),
            (.acceptLanguage, "sv"),
        ]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, value) in variants {
                group.addTask { _ = try await client.makeRequest(.get, "vehicles").header(name, value).submit() }
            }
            group.addTask {
                while mock.requests.count < variants.count { await Task.yield() }
                gate.open()
            }
            try await group.waitForAll()
        }
        #expect(mock.requests.count == variants.count)
    }

    @Test(arguments: DuplicateStep.allCases) func onlyGetAndHeadAreCompared(step: DuplicateStep) async throws {
        let (client, mock) = try duplicateClient(.reject, through: step)
        let gate = Gate()
        mock.on(.post, "vehicles") { _ in
            await gate.wait()
            return .status(201)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask { _ = try await client.post("vehicles") }
            }
            group.addTask {
                while mock.requests.count < 3 { await Task.yield() }
                gate.open()
            }
            try await group.waitForAll()
        }
        #expect(mock.requests.count == 3)
    }

    @Test(arguments: DuplicateStep.allCases) func oneWaitersCancellationDoesNotFailTheOthers(
        step: DuplicateStep
    ) async throws {
        let counter = StartCounter()
        let (client, mock) = try duplicateClient(.coalesce, through: step, counter: counter)
        let gate = Gate()
        mock.on(.get, "vehicles") { _ in
            await gate.wait()
            return .text("ok")
        }
        let leader = Task { try await client.get("vehicles") }
        while mock.requests.isEmpty { await Task.yield() }
        let follower = Task { try await client.get("vehicles") }
        await counter.waitFor(2)
        leader.cancel()
        let leaderResult = await leader.result
        if case .failure(let error as RequestKitError) = leaderResult {
            #expect(error.code == .cancelled)
        } else {
            Issue.record("the cancelled leader did not fail with cancelled: \(leaderResult)")
        }
        gate.open()
        #expect(try await follower.value.status.code == 200)
        #expect(mock.requests.count == 1)
    }

    @Test(arguments: DuplicateStep.allCases) func theSharedRequestIsCancelledWhenEveryWaiterIsGone(
        step: DuplicateStep
    ) async throws {
        let counter = StartCounter()
        let (client, mock) = try duplicateClient(.coalesce, through: step, counter: counter)
        let cancelled = Signal()
        mock.on(.get, "vehicles") { _ in
            do {
                try await Task.sleep(for: .seconds(600))
            } catch {
                cancelled.fire()
                throw error
            }
            return .text("late")
        }
        let waiters = (0..<3).map { _ in Task { try await client.get("vehicles") } }
        await counter.waitFor(3)
        while mock.requests.isEmpty { await Task.yield() }
        for waiter in waiters { waiter.cancel() }
        await cancelled.wait()
        for waiter in waiters {
            await #expect(throws: RequestKitError.self) { try await waiter.value }
        }
        #expect(mock.requests.count == 1)
    }

    @Test(arguments: DuplicateStep.allCases) func aSharedBodyLargerThanTheLimitFailsClearly(
        step: DuplicateStep
    ) async throws {
        let (client, mock) = try duplicateClient(.coalesce, through: step, maximumBodySize: 16)
        mock.on(.get, "vehicles") { _ in .text(String(repeating: "x", count: 64)) }
        let error = try await #require(throws: RequestKitError.self) { try await client.get("vehicles") }
        #expect(error.code == .bodyTooLarge)
        #expect(error.reason.contains("coalesced"))
    }

    @Test(arguments: DuplicateStep.allCases) func coalescedRequestsFailTogether(step: DuplicateStep) async throws {
        let counter = StartCounter()
        let (client, mock) = try duplicateClient(.coalesce, through: step, counter: counter)
        let gate = Gate()
        mock.on(.get, "vehicles") { _ in
            await gate.wait()
            throw RequestKitError(.transportFailed, subject: "mock", reason: "down")
        }
        let codes = try await withThrowingTaskGroup(of: RequestKitError.Code?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await client.get("vehicles")
                        return nil
                    } catch {
                        return (error as? RequestKitError)?.code
                    }
                }
            }
            group.addTask {
                await counter.waitFor(5)
                gate.open()
                return .transportFailed
            }
            var codes: [RequestKitError.Code?] = []
            for try await code in group { codes.append(code) }
            return codes
        }
        #expect(codes == Array(repeating: RequestKitError.Code.transportFailed, count: 6))
        #expect(mock.requests.count == 1)
    }
}

struct Plate: Decodable, Sendable {
    let plate: String
}
