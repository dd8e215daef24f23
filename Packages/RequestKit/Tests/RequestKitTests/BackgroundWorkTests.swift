import Foundation
import HTTPTypes
import ModelKitTesting
import RequestKit
import RequestKitTesting
import Testing

/// The facility for work that outlives a request, on its own and through a client.
struct BackgroundWorkTests {
    @Test func anOperationRunsAndIsGoneWhenItEnds() async {
        let work = BackgroundWork()
        let ran = LockedValue(false)
        #expect(work.run { ran.value = true })
        await work.waitUntilIdle()
        #expect(ran.value)
    }

    @Test func shutdownCancelsWhatIsRunningAndWaitsForIt() async {
        let work = BackgroundWork()
        let started = Signal()
        let cancelled = LockedValue(false)
        work.run {
            started.fire()
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.value = true
            }
        }
        await started.wait()
        await work.shutdown()
        #expect(cancelled.value)
    }

    @Test func afterShutdownNothingNewStarts() async {
        let work = BackgroundWork()
        await work.shutdown()
        let ran = LockedValue(false)
        #expect(!work.run { ran.value = true })
        await work.waitUntilIdle()
        #expect(!ran.value)
    }

    @Test func aStepKeepsNextForWorkAfterItAnsweredAndTheClientsShutdownCancelsIt() async throws {
        /// Answers at once, then sends the same request again in the background.
        struct FollowUp: Middleware {
            func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
                let response = try await next(request)
                next.backgroundWork.run {
                    var again = request
                    again.headerFields[HTTPField.Name("X-Follow-Up")!] = "1"
                    _ = try? await next(again)
                }
                return response
            }
        }
        let mock = MockTransport()
        let followedUp = Signal()
        let cancelled = LockedValue(false)
        mock.on(.get, "vehicles") { request in
            guard request.header("x-follow-up") == "1" else { return .text("now") }
            followedUp.fire()
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.value = true
                throw error
            }
            return .text("late")
        }
        var configuration = RequestClient.Configuration()
        configuration.middleware = [FollowUp()]
        let environment = try ServiceEnvironment(name: "mock", baseURL: "http://127.0.0.1:9/")
        let client = RequestClient(environment: environment, transport: mock, configuration: configuration)
        let response = try await client.get("vehicles")
        #expect(response.status.code == 200)
        await followedUp.wait()
        await client.shutdown()
        #expect(cancelled.value)
        #expect(mock.requests.count == 2)
    }
}
