public import Dispatch
public import ModelKit
public import StoreKitLite

// The callback forms of StoreKitLite's operations: one for each async operation, with the same parameters, then
// the completion queue and the completion. Each submits the operation and returns at once with a token (see
// `CancellableToken`); `completion` runs exactly once on `completionQueue`, a global queue unless told.
// Closures an operation takes (`initializer`, `transform`, `process`) run on the task that performs it, never on
// the completion queue. To submit and forget, pass `{ _ in }`.
extension PersistenceService {
    /// Creates one record; `completion` gets it. See `create(_:options:initializer:)`.
    @discardableResult
    public func create<R: Record>(
        _ type: R.Type = R.self,
        options: SaveOption,
        initializer: @escaping @Sendable (inout R) -> Void,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<R, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> R in
            try await self.create(type, options: options, initializer: initializer)
        }
    }

    /// Creates one record per source; `completion` gets their IDs in the order of `sources`. See
    /// `create(_:from:options:transform:)`.
    @discardableResult
    public func create<R: Record, Source: Sendable>(
        _ type: R.Type = R.self,
        from sources: [Source],
        options: SaveOption,
        transform: @escaping @Sendable (Source, inout R) -> Void,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<[ModelID<R>], StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> [ModelID<R>] in
            try await self.create(type, from: sources, options: options, transform: transform)
        }
    }

    /// Fetches matching records (read-only copies). See `fetch(_:)`.
    @discardableResult
    public func fetch<R: Record>(
        _ query: Query<R>,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<[R], StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> [R] in
            try await self.fetch(query)
        }
    }

    /// Fetches records by ID, in the order of `ids`. See `fetch(ids:)`.
    @discardableResult
    public func fetch<R: Record>(
        ids: [ModelID<R>],
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<[R], StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> [R] in
            try await self.fetch(ids: ids)
        }
    }

    /// Fetches matching records and maps each to a plain value. See `fetch(_:transform:)`.
    @discardableResult
    public func fetch<R: Record, T: Sendable>(
        _ query: Query<R>,
        transform: @escaping @Sendable (R) -> T,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<[T], StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> [T] in
            try await self.fetch(query, transform: transform)
        }
    }

    /// Fetches matching records and hands them, immutable, to `process`; `completion` gets what it returns. See
    /// `fetchReadOnly(_:process:)`.
    @discardableResult
    public func fetchReadOnly<R: Record, Output: Sendable>(
        _ query: Query<R>,
        process: @escaping @Sendable ([R]) -> Output,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Output, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> Output in
            try await self.fetchReadOnly(query, process: process)
        }
    }

    /// Fetches records by ID and hands them, immutable, to `process`; `completion` gets what it returns. See
    /// `fetchReadOnly(ids:process:)`.
    @discardableResult
    public func fetchReadOnly<R: Record, Output: Sendable>(
        ids: [ModelID<R>],
        process: @escaping @Sendable ([R]) -> Output,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Output, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> Output in
            try await self.fetchReadOnly(ids: ids, process: process)
        }
    }

    /// Counts matching records. See `count(_:)`.
    @discardableResult
    public func count<R: Record>(
        _ query: Query<R>,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Int, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> Int in
            try await self.count(query)
        }
    }

    /// Updates matching records in place; `completion` gets the number that changed. See `update(_:process:)`.
    @discardableResult
    public func update<R: Record>(
        _ query: Query<R>,
        process: @escaping @Sendable (inout [R]) -> SaveOption,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Int, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> Int in
            try await self.update(query, process: process)
        }
    }

    /// Updates records by ID in place; `completion` gets the number that changed. See `update(ids:process:)`.
    @discardableResult
    public func update<R: Record>(
        ids: [ModelID<R>],
        process: @escaping @Sendable (inout [R]) -> SaveOption,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Int, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> Int in
            try await self.update(ids: ids, process: process)
        }
    }

    /// Deletes matching records; `completion` gets the number deleted. See `delete(_:options:)`.
    @discardableResult
    public func delete<R: Record>(
        _ query: Query<R>,
        options: SaveOption,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Int, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> Int in
            try await self.delete(query, options: options)
        }
    }

    /// Deletes records by ID; `completion` gets the number deleted. See `delete(ids:options:)`.
    @discardableResult
    public func delete<R: Record>(
        ids: [ModelID<R>],
        options: SaveOption,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Int, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) -> Int in
            try await self.delete(ids: ids, options: options)
        }
    }

    /// Applies a save option to everything pending in this service. See `saveAll(_:)`.
    @discardableResult
    public func saveAll(
        _ options: SaveOption,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) -> CancellableToken {
        start(completionQueue, completion) { () async throws(StoreError) in
            try await self.saveAll(options)
        }
    }

    /// Discards this service's unsaved changes before it returns, then calls `completion` on `completionQueue`.
    ///
    /// The changes are gone when this returns; the token it returns is already finished, so cancelling it does
    /// nothing.
    @discardableResult
    public func rollback(
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) -> CancellableToken {
        rollback()
        return CallbackRunner.deliver(.success(()), completionQueue: completionQueue, completion: completion)
    }

    private func start<Value: Sendable>(
        _ completionQueue: DispatchQueue,
        _ completion: @escaping @Sendable (Result<Value, StoreError>) -> Void,
        work: @escaping @Sendable () async throws(StoreError) -> Value
    ) -> CancellableToken {
        CallbackRunner.start(
            completionQueue: completionQueue,
            cancellation: { StoreError(.cancelled, detail: "a callback's token was cancelled") },
            completion: completion,
            work: work
        )
    }
}
