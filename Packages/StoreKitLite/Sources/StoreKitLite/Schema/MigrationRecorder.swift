import Tracing

/// What a backend runs each migration through while it migrates a store (``StoreBackend/migrate(to:recording:)``),
/// so that a traced ``PersistenceService`` shows one span per migration applied, with its name and the schema
/// versions (migrations applied) before and after it.
///
/// ```swift
/// for (offset, migration) in pending.enumerated() {
///     try recorder.record(migration, at: applied.count + offset) { () throws(StoreError) in
///         // carry out migration.steps
///     }
/// }
/// ```
///
/// A recorder made by a service without a tracer, and ``off``, only run the body.
public struct MigrationRecorder: Sendable {
    let tracer: (any Tracer)?
    let parent: ServiceContext
    let backend: BackendDescription

    init(tracer: (any Tracer)?, parent: ServiceContext, backend: BackendDescription) {
        self.tracer = tracer
        self.parent = parent
        self.backend = backend
    }

    /// A recorder that records nothing.
    public static let off = MigrationRecorder(tracer: nil, parent: .topLevel, backend: .otherSQL)

    /// Runs `body`, which applies `migration`, the one at `position` (the number of migrations the store had
    /// applied before it), recording its duration and whether it threw.
    public func record<Result, Failure: Error>(
        _ migration: Migration,
        at position: Int,
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard let span = start(migration, at: position) else { return try body() }
        do {
            let result = try body()
            span.end()
            return result
        } catch {
            span.fail(error)
            throw error
        }
    }

    /// Runs `body`, which applies `migration`, the one at `position` (the number of migrations the store had
    /// applied before it), recording its duration and whether it threw.
    public nonisolated(nonsending) func record<Result, Failure: Error>(
        _ migration: Migration,
        at position: Int,
        _ body: nonisolated(nonsending) () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        guard let span = start(migration, at: position) else { return try await body() }
        do {
            let result = try await body()
            span.end()
            return result
        } catch {
            span.fail(error)
            throw error
        }
    }

    private func start(_ migration: Migration, at position: Int) -> StoreSpan? {
        guard let tracer else { return nil }
        let span = StoreSpan(
            tracer: tracer,
            name: StoreSpan.Operation.migrate + " " + migration.name,
            context: parent,
            kind: .client,
            backend: backend,
            operation: StoreSpan.Operation.migrate
        )
        span.span.updateAttributes { attributes in
            attributes[StoreSpan.Key.migrationName] = migration.name
            attributes[StoreSpan.Key.migrationFromVersion] = position
            attributes[StoreSpan.Key.migrationToVersion] = position + 1
            attributes[StoreSpan.Key.migrationSteps] = migration.steps.count
        }
        return span
    }
}
