import StoreKitLite

/// Group commit: batches submitted while a commit is running wait for it, then go to the store together in the
/// next transaction, so one sync to disk makes many of them durable.
///
/// There is no task of its own. The first caller to find no commit running leads: it commits its own batch. Callers
/// that arrive meanwhile queue and suspend. When a commit ends, its leader resumes each member of its group with its
/// own outcome, and hands the lead to the first caller queued, which commits everything queued behind it (up to
/// ``maximumGroupSize`` batches) as the next group. Every caller therefore returns once the commit that carried its
/// batch has ended, and never waits for a commit that started after its own.
///
/// Members of a group are committed in the order they arrived. What `commit` reports for each member is that
/// member's outcome alone: a member that fails (a conflict, a duplicate ID) is rolled back without failing the
/// others (see ``SQLiteBackend``).
final class GroupCommit: Sendable {
    /// What a queued caller is resumed with.
    private enum Resumption: Sendable {
        /// Lead the next group: commit the caller's own batch followed by these queued members.
        case lead([Member])
        /// The commit that carried the caller's batch ended: `nil` when it is durable, the error otherwise.
        case finished(StoreError?)
    }

    private struct Member: Sendable {
        let batch: ChangeBatch
        let continuation: CheckedContinuation<Resumption, Never>
    }

    private struct State {
        var committing = false
        var queue: [Member] = []
    }

    /// The most batches one transaction carries; more wait for the next one.
    static let maximumGroupSize = 256

    private let state = Locked(State())

    /// Whether no commit is running or queued.
    var isIdle: Bool {
        state.withLock { !$0.committing }
    }

    /// Commits `batch` in a group with the batches submitted meanwhile, and returns once the commit that carried it
    /// has ended.
    ///
    /// - Parameter commit: commits a group of batches, in order, in one transaction, and returns each one's
    ///   outcome (`nil` for committed), in the same order. Called for at most one group at a time.
    func submit(
        _ batch: ChangeBatch,
        commit: ([ChangeBatch]) async -> [StoreError?]
    ) async throws(StoreError) {
        let leadsNow = state.withLock { state -> Bool in
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
        var followers: [Member] = []
        if !leadsNow {
            let resumption = await withCheckedContinuation { (continuation: CheckedContinuation<Resumption, Never>) in
                let leads = state.withLock { state -> Bool in
                    guard !state.committing else {
                        state.queue.append(Member(batch: batch, continuation: continuation))
                        return false
                    }
                    state.committing = true
                    return true
                }
                if leads { continuation.resume(returning: .lead([])) }
            }
            switch resumption {
            case .finished(let error):
                if let error { throw error }
                return
            case .lead(let members):
                followers = members
            }
        }
        let outcomes = await commit([batch] + followers.map(\.batch))
        func outcome(_ index: Int) -> StoreError? {
            index < outcomes.count ? outcomes[index] : StoreError(.backend, detail: "a group commit lost an outcome")
        }
        for (index, member) in followers.enumerated() {
            member.continuation.resume(returning: .finished(outcome(index + 1)))
        }
        handOver()
        if let error = outcome(0) { throw error }
    }

    /// Gives the lead to the first queued caller, with the members behind it, or marks the committer idle.
    private func handOver() {
        let next = state.withLock { state -> (leader: Member, members: [Member])? in
            guard !state.queue.isEmpty else {
                state.committing = false
                return nil
            }
            let taken = state.queue.prefix(Self.maximumGroupSize)
            state.queue.removeFirst(taken.count)
            return (taken[taken.startIndex], Array(taken.dropFirst()))
        }
        next?.leader.continuation.resume(returning: .lead(next?.members ?? []))
    }
}
