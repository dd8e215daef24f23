import Dispatch
import LocatorKit
import ModelKitTesting
import Testing

@testable import ServiceShapes

/// The token's state machine, driven without a task or a queue.
struct CallbackStateTests {
    @Test func finishingWhileRunningDeliversTheOperationsOwnResult() {
        var state = CallbackState()
        let cancelledEarly = state.attach(Task {})
        #expect(!cancelledEarly)
        let ownResult = state.finish()
        #expect(ownResult)
        #expect(state.isFinished)
        #expect(!state.isCancelled)
        // Cancelling after the outcome returns no task to cancel and changes nothing.
        let late = state.cancel()
        #expect(late == nil)
        #expect(!state.isCancelled)
    }

    @Test func cancellingWhileRunningReturnsTheTaskAndTurnsTheOutcomeIntoCancellation() {
        var state = CallbackState()
        let task = Task {}
        _ = state.attach(task)
        let toCancel = state.cancel()
        #expect(toCancel == task)
        #expect(state.isCancelled)
        #expect(!state.isFinished)
        // A second cancel has nothing more to cancel.
        let again = state.cancel()
        #expect(again == nil)
        let ownResult = state.finish()
        #expect(!ownResult)
        #expect(state.isFinished)
        #expect(state.isCancelled)
    }

    @Test func aCancelBeforeTheTaskIsKnownCancelsItWhenItIsAttached() {
        var state = CallbackState()
        let beforeAttach = state.cancel()
        #expect(beforeAttach == nil)
        let cancelNow = state.attach(Task {})
        #expect(cancelNow)
        let ownResult = state.finish()
        #expect(!ownResult)
    }
}

/// The runner with work that waits for the test, so each ordering of cancel and outcome is forced.
struct CallbackRunnerTests {
    struct Failure: Error, Equatable {
        let reason: String
    }

    @Test func theWorksOutcomeIsDeliveredOnceOnTheQueue() async throws {
        let queue = LabelledQueue("runner")
        let (result, label) = await outcome { (done: @escaping @Sendable (Result<Int, Failure>) -> Void) in
            _ = CallbackRunner.start(
                completionQueue: queue.queue,
                cancellation: { Failure(reason: "cancelled") },
                completion: done,
                work: { () async throws(Failure) -> Int in 42 }
            )
        }
        #expect(try result.get() == 42)
        #expect(label == queue.label)
    }

    @Test func aThrownErrorIsDeliveredAsTheFailure() async {
        let (result, _) = await outcome { (done: @escaping @Sendable (Result<Int, Failure>) -> Void) in
            _ = CallbackRunner.start(
                completionQueue: .global(),
                cancellation: { Failure(reason: "cancelled") },
                completion: done,
                work: { () async throws(Failure) -> Int in throw Failure(reason: "broken") }
            )
        }
        #expect(throws: Failure(reason: "broken")) { try result.get() }
    }

    @Test func aCancelledTokenDeliversTheCancellationAfterTheWorkStopped() async throws {
        let started = Signal()
        let stopped = LockedValue(false)
        let calls = LockedValue<[Result<Int, Failure>]>([])
        let completed = Signal()
        let token = CallbackRunner.start(
            completionQueue: .global(),
            cancellation: { Failure(reason: "cancelled") },
            completion: { (result: Result<Int, Failure>) in
                #expect(stopped.value, "the completion ran before the work stopped")
                calls.update { $0.append(result) }
                completed.fire()
            },
            work: { () async throws(Failure) -> Int in
                started.fire()
                // Ignores cancellation for a moment, as a store commit would, then returns a value.
                while !Task.isCancelled { await Task.yield() }
                try? await Task.sleep(for: .milliseconds(50))
                stopped.value = true
                return 7
            }
        )
        await started.wait()
        token.cancel()
        await completed.wait()
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.value.count == 1)
        #expect(throws: Failure(reason: "cancelled")) { try calls.value.first?.get() }
        #expect(token.isCancelled && token.isFinished)
    }

    @Test func aKnownOutcomeIsDeliveredWithAFinishedToken() async throws {
        let queue = LabelledQueue("known")
        let token = LockedValue<CancellableToken?>(nil)
        let (result, label) = await outcome { (done: @escaping @Sendable (Result<String, Failure>) -> Void) in
            token.value = CallbackRunner.deliver(.success("now"), completionQueue: queue.queue, completion: done)
        }
        #expect(try result.get() == "now")
        #expect(label == queue.label)
        #expect(token.value?.isFinished == true)
        token.value?.cancel()
        #expect(token.value?.isCancelled == false)
    }
}

struct EditDistanceTests {
    @Test(arguments: [
        ("", "", 0), ("abc", "", 3), ("", "abc", 3), ("kitten", "sitting", 3), ("sqlite", "sqlit", 1),
        ("memory", "memroy", 2), ("flaw", "lawn", 2), ("postgres", "postgres", 0),
    ])
    func levenshteinCountsInsertionsDeletionsAndSubstitutions(a: String, b: String, distance: Int) {
        #expect(NearestNames.distance(a, b) == distance)
        #expect(NearestNames.distance(b, a) == distance)
    }

    @Test func nearestNamesIgnoreCaseKeepRegistrationOrderOnTiesAndStopAtTheLimit() {
        let names = ["Memory", "sqlite", "postgres", "sqlite3"]
        #expect(NearestNames.ordered(by: "SQLITE", among: names, limit: 3) == ["sqlite", "sqlite3", "Memory"])
        #expect(NearestNames.ordered(by: "x", among: ["ab", "cd"], limit: 3) == ["ab", "cd"])
        #expect(NearestNames.ordered(by: "anything", among: [], limit: 3).isEmpty)
    }
}
