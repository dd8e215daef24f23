import Tracing

/// A span a service started for one operation, with the attribute names of OpenTelemetry's database conventions
/// and StoreKitLite's own. Every path that starts one ends it, once: `end…` on success, ``fail(_:)`` on a throw
/// (cancellation included).
///
/// Attributes describe the operation's shape only (entity, operation, predicate with `?` for every value, counts),
/// never a stored or bound value and never a record ID.
@usableFromInline
struct StoreSpan: Sendable {
    /// Operation names (`db.operation.name`).
    enum Operation {
        static let select = "SELECT"
        static let count = "COUNT"
        static let insert = "INSERT"
        static let update = "UPDATE"
        static let delete = "DELETE"
        static let batch = "BATCH"
        static let migrate = "MIGRATE"
    }

    /// Attribute names.
    enum Key {
        static let system = "db.system.name"
        static let namespace = "db.namespace"
        static let operation = "db.operation.name"
        static let collection = "db.collection.name"
        static let summary = "db.query.summary"
        static let returnedRows = "db.response.returned_rows"
        static let batchSize = "db.operation.batch.size"
        static let errorType = "error.type"
        static let predicate = "storekitlite.query.predicate"
        static let sorted = "storekitlite.query.sorted"
        static let limited = "storekitlite.query.limited"
        static let requestedIDs = "storekitlite.query.ids"
        static let callingThread = "storekitlite.calling_thread"
        static let saveOption = "storekitlite.save.option"
        static let durability = "storekitlite.durability"
        static let inserts = "storekitlite.inserts"
        static let updates = "storekitlite.updates"
        static let deletes = "storekitlite.deletes"
        static let recordsPrefix = "storekitlite.records."
        static let mergePolicy = "storekitlite.merge_policy"
        static let conflictRecords = "storekitlite.conflict.records"
        static let conflictEvent = "storekitlite.conflict"
        static let schemaVersion = "storekitlite.schema.version"
        static let migrationName = "storekitlite.migration.name"
        static let migrationFromVersion = "storekitlite.migration.from_version"
        static let migrationToVersion = "storekitlite.migration.to_version"
        static let migrationSteps = "storekitlite.migration.steps"
    }

    let span: any Span

    /// Starts a span with the backend's system and namespace and the operation's name.
    init(
        tracer: any Tracer,
        name: String,
        context: ServiceContext,
        kind: SpanKind,
        backend: BackendDescription,
        operation: String
    ) {
        span = tracer.startSpan(name, context: context, ofKind: kind)
        span.updateAttributes { attributes in
            attributes[Key.system] = backend.system
            if let namespace = backend.namespace { attributes[Key.namespace] = namespace }
            attributes[Key.operation] = operation
        }
    }

    /// Notes whether the operation ran on the calling thread.
    @usableFromInline
    func ranOnCallingThread(_ callingThread: Bool) {
        span.attributes[Key.callingThread] = callingThread
    }

    /// Ends a successful operation.
    @usableFromInline
    func end() {
        span.end()
    }

    /// Ends a successful read that returned `rows` records.
    @usableFromInline
    func end(returnedRows rows: Int) {
        span.attributes[Key.returnedRows] = rows
        span.end()
    }

    /// Ends an operation that threw: `error.type` is the ``StoreError/Code`` name (the Swift type name of another
    /// error) and the status is an error. The error's description is not recorded: it may name record IDs.
    @usableFromInline
    func fail(_ error: some Error) {
        let type = (error as? StoreError)?.code.name ?? String(reflecting: Swift.type(of: error))
        span.attributes[Key.errorType] = type
        span.setStatus(SpanStatus(code: .error, message: type))
        span.end()
    }

    /// Records an optimistic-concurrency conflict that the merge policy resolves by trying again.
    func conflict(records: Int, policy: MergePolicy) {
        span.addEvent(
            SpanEvent(
                name: Key.conflictEvent,
                attributes: [Key.conflictRecords: .int64(Int64(records)), Key.mergePolicy: .string("\(policy)")]
            )
        )
    }
}

extension StoreSpan {
    /// Runs `body` in `span`, or bare without one, and ends the span on every path: with the row count `rows`
    /// gives for the result (when it gives one), or failed with the error `body` threw.
    @inlinable
    static func run<T>(
        _ span: StoreSpan?,
        rows: (T) -> Int?,
        _ body: (StoreSpan?) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        guard let span else { return try body(nil) }
        do throws(StoreError) {
            let result = try body(span)
            if let count = rows(result) { span.end(returnedRows: count) } else { span.end() }
            return result
        } catch {
            span.fail(error)
            throw error
        }
    }

    /// ``run(_:rows:_:)`` for an `async` body, which runs in the caller's isolation.
    @inlinable
    nonisolated(nonsending) static func runAsync<T>(
        _ span: StoreSpan?,
        rows: (T) -> Int?,
        _ body: nonisolated(nonsending) (StoreSpan?) async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        guard let span else { return try await body(nil) }
        do throws(StoreError) {
            let result = try await body(span)
            if let count = rows(result) { span.end(returnedRows: count) } else { span.end() }
            return result
        } catch {
            span.fail(error)
            throw error
        }
    }
}
