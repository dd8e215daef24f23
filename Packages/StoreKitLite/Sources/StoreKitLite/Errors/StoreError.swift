public import Foundation

/// Why a StoreKitLite operation failed.
///
/// Compare ``code`` with the static members (`error.code == .conflict`); new codes may be added without breaking
/// callers. ``shortDescription`` is the code's name, for metric labels; ``description`` is short and bounded: it
/// names the code, the entity, up to three record IDs and a detail cut to 120 characters.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case notInitialized = "the store is not initialized yet"
            case initializationFailed = "the store failed to initialize"
            case invalidModel = "the model is invalid"
            case newerSchema = "the store was written by a newer schema"
            case notADatabase = "the file is not a database or is corrupt"
            case cannotOpen = "the store cannot be opened"
            case readOnly = "the store is read-only"
            case diskFull = "the disk is full"
            case corruptValue = "a stored value does not fit its column"
            case invalidQuery = "the query is invalid"
            case idChanged = "an update changed a record ID"
            case conflict = "records were changed by someone else"
            case duplicateRecord = "a record with this ID already exists"
            case duplicateValue = "another record has the same values in a unique index"
            case backend = "the backend failed"
            case cancelled = "the caller cancelled the operation"
            case timedOut = "the operation took longer than the store allows"
            case connectionLost = "the connection to the database server was lost"
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// An operation ran before initialization finished.
        public static let notInitialized = Code(.notInitialized)
        /// Initialization failed for a reason with no code of its own (an I/O error of the backend, say);
        /// ``StoreError/reason`` says why. Failures that have a code (``notADatabase``, ``newerSchema``,
        /// ``cannotOpen``, ``readOnly``, ``invalidModel``) are reported with it. Every later operation reports the
        /// same error.
        public static let initializationFailed = Code(.initializationFailed)
        /// The model or its migrations are inconsistent (duplicate names, migrations not producing the model).
        public static let invalidModel = Code(.invalidModel)
        /// The store has migrations this model does not know: it was written by a newer version of the app.
        public static let newerSchema = Code(.newerSchema)
        /// The file exists but is not a database of this backend, or is corrupt.
        public static let notADatabase = Code(.notADatabase)
        /// The store cannot be opened or created (missing or unwritable directory, permissions).
        public static let cannotOpen = Code(.cannotOpen)
        /// A write hit a read-only store, or a store opened read-only needs migrations.
        public static let readOnly = Code(.readOnly)
        /// A write ran out of space; nothing of it was written.
        public static let diskFull = Code(.diskFull)
        /// A stored value does not convert to its column's Swift type.
        public static let corruptValue = Code(.corruptValue)
        /// The query names a property that is not a column of the record type.
        public static let invalidQuery = Code(.invalidQuery)
        /// An update closure changed the ID of a record.
        public static let idChanged = Code(.idChanged)
        /// Optimistic concurrency failed: ``StoreError/records`` were changed or deleted since they were read.
        public static let conflict = Code(.conflict)
        /// An insert used an ID the store already holds.
        public static let duplicateRecord = Code(.duplicateRecord)
        /// A write would give two records the same values in a unique index
        /// (``MigrationStep/createUniqueIndex(name:entity:columns:)``); nothing of its batch was written.
        public static let duplicateValue = Code(.duplicateValue)
        /// Any other backend failure; ``StoreError/reason`` says which.
        public static let backend = Code(.backend)
        /// The caller stopped waiting for the operation (a cancelled task or callback token) before it finished.
        /// A write that was already under way may still have reached the store: fetch to find out.
        public static let cancelled = Code(.cancelled)
        /// The operation ran longer than a limit the store was configured with (a PostgreSQL statement timeout,
        /// say) and was stopped; a write stopped this way wrote nothing.
        public static let timedOut = Code(.timedOut)
        /// The connection to a database server broke during the operation (the server restarted, or ended the
        /// session). A read can simply be retried. A write that failed before its commit was sent wrote nothing;
        /// when the connection broke while the commit itself was under way, ``StoreError/detail`` says so and the
        /// batch is either entirely written or not at all: fetch to find out. Later operations open a new
        /// connection by themselves.
        public static let connectionLost = Code(.connectionLost)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`notInitialized`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }

        /// A short sentence for people, used in the error's description.
        var phrase: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The entity concerned, if any.
    public let entity: String?
    /// The records concerned (for conflicts: every conflicting record).
    public let records: [UUID]
    /// A short detail, cut to 120 characters.
    public let detail: String
    /// What the backend or the system said, cut to 200 characters.
    public let reason: String?
    /// The error underneath (the backend's or the system's), when there is one.
    public let underlying: (any Error)?

    /// The code's name (`conflict`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// Makes an error; backends use this to report failures.
    public init(
        _ code: Code,
        entity: String? = nil,
        records: [UUID] = [],
        detail: String = "",
        reason: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.entity = entity
        self.records = records
        self.detail = String(detail.prefix(120))
        self.reason = reason.map { String($0.prefix(200)) }
        self.underlying = underlying
    }

    public var description: String {
        var text = code.phrase
        if let entity { text += " (\(entity.prefix(100)))" }
        if !records.isEmpty {
            let shown = records.prefix(3).map { $0.uuidString.lowercased() }.joined(separator: ", ")
            text += ": " + shown + (records.count > 3 ? " and \(records.count - 3) more" : "")
        }
        if !detail.isEmpty { text += "; " + detail }
        if let reason { text += "; " + reason }
        return text
    }
}
