/// Runs async operations one at a time, in arrival order. Actors alone do not do that: an actor method that
/// awaits lets the next call in. The fleet service's writes go through one lane, so that "is this plate taken?"
/// and the insert that follows are not interleaved with another write.
actor SerialLane {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once every earlier operation of this lane has finished.
    nonisolated func run<T: Sendable>(_ body: () async throws(FleetError) -> T) async throws(FleetError) -> T {
        await acquire()
        let result: Result<T, FleetError>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await release()
        return try result.get()
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
