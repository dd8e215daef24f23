public import Dispatch
public import ModelKit

/// The callback forms: each submits the operation and returns at once; `success` or `failure` is called
/// on `completionQueue` (or, when it is `nil`, on whichever thread finished the work). Passing `nil` callbacks
/// submits and forgets.
extension PersistenceService {
    /// Creates one record. See ``create(_:options:initializer:)``.
    public func create<R: Record>(
        _ type: R.Type = R.self,
        options: SaveOption,
        initializer: @escaping @Sendable (inout R) -> Void,
        success: (@Sendable (R) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> R in
            try await self.create(type, options: options, initializer: initializer)
        }
    }

    /// Creates one record per source. See ``create(_:from:options:transform:)``.
    public func create<R: Record, Source: Sendable>(
        _ type: R.Type = R.self,
        from sources: [Source],
        options: SaveOption,
        transform: @escaping @Sendable (Source, inout R) -> Void,
        success: (@Sendable ([ModelID<R>]) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) {
            () async throws(StoreError) -> [ModelID<R>] in
            try await self.create(type, from: sources, options: options, transform: transform)
        }
    }

    /// Fetches and transforms. See ``fetch(_:transform:)``.
    public func fetch<R: Record, T: Sendable>(
        _ query: Query<R> = Query<R>(),
        transform: @escaping @Sendable (R) -> T,
        success: (@Sendable ([T]) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> [T] in
            try await self.fetch(query, transform: transform)
        }
    }

    /// Fetches matching records for read-only processing. See ``fetchReadOnly(_:process:)``.
    public func fetchReadOnly<R: Record>(
        _ query: Query<R> = Query<R>(),
        success: (@Sendable ([R]) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> [R] in
            try await self.fetch(query)
        }
    }

    /// Fetches records by ID. See ``fetch(ids:)``.
    public func fetchReadOnly<R: Record>(
        ids: [ModelID<R>],
        success: (@Sendable ([R]) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> [R] in
            try await self.fetch(ids: ids)
        }
    }

    /// Fetches matching records and hands them, immutable, to `process`;
    /// `success` gets what it returns. `process` runs on the task that read the records, never on the completion
    /// queue. See ``fetchReadOnly(_:process:)``.
    public func fetchReadOnly<R: Record, Result: Sendable>(
        _ query: Query<R> = Query<R>(),
        process: @escaping @Sendable ([R]) -> Result,
        success: (@Sendable (Result) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) {
            () async throws(StoreError) -> Result in
            try await self.fetchReadOnly(query, process: process)
        }
    }

    /// Fetches records by ID and hands them, immutable, to `process`; `success` gets what it returns. See
    /// ``fetchReadOnly(ids:process:)``.
    public func fetchReadOnly<R: Record, Result: Sendable>(
        ids: [ModelID<R>],
        process: @escaping @Sendable ([R]) -> Result,
        success: (@Sendable (Result) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) {
            () async throws(StoreError) -> Result in
            try await self.fetchReadOnly(ids: ids, process: process)
        }
    }

    /// Counts matching records. See ``count(_:)-(Query<R>)``.
    public func count<R: Record>(
        _ query: Query<R>,
        success: (@Sendable (Int) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> Int in
            try await self.count(query)
        }
    }

    /// Updates matching records. See ``update(_:process:)``.
    public func update<R: Record>(
        _ query: Query<R> = Query<R>(),
        process: @escaping @Sendable (inout [R]) -> SaveOption,
        success: (@Sendable (Int) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> Int in
            try await self.update(query, process: process)
        }
    }

    /// Updates records by ID. See ``update(ids:process:)``.
    public func update<R: Record>(
        ids: [ModelID<R>],
        process: @escaping @Sendable (inout [R]) -> SaveOption,
        success: (@Sendable (Int) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> Int in
            try await self.update(ids: ids, process: process)
        }
    }

    /// Deletes matching records. See ``delete(_:options:)``.
    public func delete<R: Record>(
        _ query: Query<R>,
        options: SaveOption,
        success: (@Sendable (Int) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> Int in
            try await self.delete(query, options: options)
        }
    }

    /// Deletes records by ID. See ``delete(ids:options:)``.
    public func delete<R: Record>(
        ids: [ModelID<R>],
        options: SaveOption,
        success: (@Sendable (Int) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(success: success, failure: failure, queue: completionQueue) { () async throws(StoreError) -> Int in
            try await self.delete(ids: ids, options: options)
        }
    }

    /// Applies a save option to everything pending. See ``saveAll(_:)``.
    public func saveAll(
        _ options: SaveOption,
        success: (@Sendable () -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        completionQueue: DispatchQueue? = nil
    ) {
        submit(
            success: success.map { callback in { (_: Void) in callback() } },
            failure: failure,
            queue: completionQueue
        ) { () async throws(StoreError) in
            try await self.saveAll(options)
        }
    }

    /// Discards this service's unsaved changes, then calls `completion`.
    public func rollback(completion: (@Sendable () -> Void)?, completionQueue: DispatchQueue? = nil) {
        rollback()
        guard let completion else { return }
        if let completionQueue {
            completionQueue.async(execute: completion)
        } else {
            completion()
        }
    }

    private func submit<T: Sendable>(
        success: (@Sendable (T) -> Void)?,
        failure: (@Sendable (StoreError) -> Void)?,
        queue: DispatchQueue?,
        operation: @escaping @Sendable () async throws(StoreError) -> T
    ) {
        Task {
            do throws(StoreError) {
                let value = try await operation()
                guard let success else { return }
                if let queue { queue.async { success(value) } } else { success(value) }
            } catch {
                guard let failure else { return }
                if let queue { queue.async { failure(error) } } else { failure(error) }
            }
        }
    }
}
