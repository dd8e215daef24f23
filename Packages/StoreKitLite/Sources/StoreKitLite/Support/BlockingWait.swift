import Dispatch

/// Runs an async operation to completion while the calling thread waits: the engine of the `…AndWait` forms.
///
/// Must not be called from an async context (the `…AndWait` methods are marked `noasync`): blocking a thread of
/// the cooperative pool while the operation needs one could deadlock.
enum BlockingWait {
    static func run<T>(_ operation: @escaping @Sendable () async throws(StoreError) -> T) throws(StoreError) -> T {
        let outcome = Locked<Result<UncheckedSendable<T>, StoreError>?>(nil)
        // The operation may capture the caller's non-escaping closures (via `withoutActuallyEscaping`): it must be
        // released before the caller resumes, so the task takes it out of this box and drops it before signalling.
        let pending = Locked<(@Sendable () async throws(StoreError) -> T)?>(operation)
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            let result = await perform(pending)
            outcome.withLock { $0 = result }
            semaphore.signal()
        }
        semaphore.wait()
        let result = outcome.withLock { $0 }
        switch result {
        case .success(let value)?: return value.value
        case .failure(let error)?: throw error
        case nil: throw StoreError(.backend, detail: "the operation ended without a result")
        }
    }

    private static func perform<T>(
        _ pending: Locked<(@Sendable () async throws(StoreError) -> T)?>
    ) async -> Result<UncheckedSendable<T>, StoreError> {
        guard
            let operation = pending.withLock({ box in
                defer { box = nil }; return box
            })
        else {
            return .failure(StoreError(.backend, detail: "the operation ran twice"))
        }
        do throws(StoreError) {
            return .success(UncheckedSendable(try await operation()))
        } catch {
            return .failure(error)
        }
    }
}
