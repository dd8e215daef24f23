public import StoreKitLite

/// The checks every ``StoreKitLite/StoreBackend`` must pass, runnable from any test framework.
///
/// Each check gets a fresh, empty backend from the factory you pass and throws ``ConformanceFailure`` when the
/// backend misbehaves. With Swift Testing, one parameterised test runs them all:
///
/// ```swift
/// @Test(arguments: BackendConformance.checks)
/// func postgresConforms(check: BackendConformance.Check) async throws {
///     try await check.run { PostgresBackend(client: client, schema: "test_\(UUID())") }
/// }
/// ```
///
/// The checks cover: migrations (ordered, named, applied once, newer schemas refused without changes), round
/// trips of every storage class, fetching by ID, changed-columns-only updates and revisions, atomic batches,
/// optimistic-concurrency conflicts naming every conflicting record, duplicate IDs, query semantics against the
/// in-memory reference (fixed cases and a seeded property-based comparison on random data with `NULL`s, mixed
/// case and boundary values), counts with excluded IDs against the same reference, cursor reads
/// (``StoreKitLite/StoreBackend/fetch(_:reading:)``) that give exactly the fetched rows, concurrent commits where
/// one member fails and the others are still committed, and commit observation (once per commit, in order).
///
/// A ``StoreKitLite/SynchronousStoreBackend`` also runs ``synchronousChecks``: its calling-thread reads, counts and
/// commits give exactly what the `async` forms give, and its ``StoreKitLite/SynchronousStoreBackend/commitVersion()``
/// changes with every commit.
public enum BackendConformance {
    /// One named check.
    public struct Check: Sendable, CustomStringConvertible {
        /// What the check verifies, as a sentence.
        public let name: String
        let body: @Sendable (any StoreBackend) async throws -> Void

        /// Runs the check on a fresh backend.
        public func run(makeBackend: @Sendable () async throws -> any StoreBackend) async throws {
            let backend = try await makeBackend()
            try await body(backend)
        }

        public var description: String { name }
    }

    /// Every check, in a stable order.
    public static let checks: [Check] = [
        Check(
            name: "migrations apply once, in order, and add columns with defaults",
            body: ConformanceChecks.migrations
        ),
        Check(
            name: "a store with unknown migrations is refused and left unchanged",
            body: ConformanceChecks.newerSchema
        ),
        Check(name: "every storage class round-trips", body: ConformanceChecks.roundTrip),
        Check(name: "fetching by ID returns exactly the stored rows", body: ConformanceChecks.fetchByIDs),
        Check(name: "updates write only changed columns and bump the revision", body: ConformanceChecks.updates),
        Check(
            name: "a stale revision is a conflict naming every record, and nothing is written",
            body: ConformanceChecks.conflicts
        ),
        Check(name: "unchecked writes overwrite whatever is stored", body: ConformanceChecks.uncheckedWrites),
        Check(name: "a duplicate ID fails the whole batch", body: ConformanceChecks.duplicateInsert),
        Check(name: "fixed queries match the in-memory evaluation", body: ConformanceChecks.fixedQueries),
        Check(
            name: "random queries on random data match the in-memory evaluation",
            body: ConformanceChecks.randomQueries
        ),
        Check(
            name: "a cursor reads exactly the rows, order, revisions and values a fetch returns",
            body: ConformanceChecks.cursorReads
        ),
        Check(
            name: "counts match the in-memory evaluation, with and without excluded IDs",
            body: ConformanceChecks.counts
        ),
        Check(name: "committed batches are observed once per commit, in order", body: ConformanceChecks.observation),
        Check(
            name: "a unique index refuses a clashing insert or update whole, and lets NULLs and deleted values through",
            body: ConformanceChecks.uniqueIndexes
        ),
        Check(
            name: "concurrent commits each succeed or fail alone: a conflicting one loses nothing of the others",
            body: ConformanceChecks.concurrentCommits
        ),
    ]

    /// The checks a ``StoreKitLite/SynchronousStoreBackend`` passes as well, in a stable order; each fails at once for
    /// a backend that is not one.
    public static let synchronousChecks: [Check] = [
        Check(
            name: "a calling-thread read reads exactly the rows a fetch returns",
            body: ConformanceChecks.callingThreadReads
        ),
        Check(
            name: "a calling-thread read by ID reads exactly the rows a fetch by ID returns",
            body: ConformanceChecks.callingThreadReadsByID
        ),
        Check(
            name: "a calling-thread count matches the async count, with and without excluded IDs",
            body: ConformanceChecks.callingThreadCounts
        ),
        Check(
            name: "a calling-thread commit is atomic, is observed, and changes the commit version",
            body: ConformanceChecks.callingThreadCommits
        ),
    ]

    /// Runs every check, each on a fresh backend; stops at the first failure.
    public static func runAll(makeBackend: @Sendable () async throws -> any StoreBackend) async throws {
        for check in checks {
            try await check.run(makeBackend: makeBackend)
        }
        guard try await makeBackend() is any SynchronousStoreBackend else { return }
        for check in synchronousChecks {
            try await check.run(makeBackend: makeBackend)
        }
    }
}
