public import Foundation

/// Why a StoreKitLite operation failed.
///
/// Compare ``kind`` with the static members (`error.kind == .conflict`); new kinds may be added without breaking
/// callers. ``description`` is short and bounded: it names the kind, the entity, up to three record IDs and a
/// detail cut to 120 characters.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// A kind of failure.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Sendable {
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
            case backend = "the backend failed"
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// An operation ran before initialization finished.
        public static let notInitialized = Kind(.notInitialized)
        /// Initialization failed for a reason with no kind of its own (an I/O error of the backend, say);
        /// ``StoreError/underlying`` says why. Failures that have a kind (``notADatabase``, ``newerSchema``,
        /// ``cannotOpen``, ``readOnly``, ``invalidModel``) are reported with it. Every later operation reports the
        /// same error.
        public static let initializationFailed = Kind(.initializationFailed)
        /// The model or its migrations are inconsistent (duplicate names, migrations not producing the model).
        public static let invalidModel = Kind(.invalidModel)
        /// The store has migrations this model does not know: it was written by a newer version of the app.
        public static let newerSchema = Kind(.newerSchema)
        /// The file exists but is not a database of this backend, or is corrupt.
        public static let notADatabase = Kind(.notADatabase)
        /// The store cannot be opened or created (missing or unwritable directory, permissions).
        public static let cannotOpen = Kind(.cannotOpen)
        /// A write hit a read-only store, or a store opened read-only needs migrations.
        public static let readOnly = Kind(.readOnly)
        /// A write ran out of space; nothing of it was written.
        public static let diskFull = Kind(.diskFull)
        /// A stored value does not convert to its column's Swift type.
        public static let corruptValue = Kind(.corruptValue)
        /// The query names a property that is not a column of the record type.
        public static let invalidQuery = Kind(.invalidQuery)
        /// An update closure changed the ID of a record.
        public static let idChanged = Kind(.idChanged)
        /// Optimistic concurrency failed: ``StoreError/records`` were changed or deleted since they were read.
        public static let conflict = Kind(.conflict)
        /// An insert used an ID the store already holds.
        public static let duplicateRecord = Kind(.duplicateRecord)
        /// Any other backend failure; ``StoreError/underlying`` says which.
        public static let backend = Kind(.backend)

        public var description: String { code.rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// The entity concerned, if any.
    public let entity: String?
    /// The records concerned (for conflicts: every conflicting record).
    public let records: [UUID]
    /// A short detail, cut to 120 characters.
    public let detail: String
    /// The description of the underlying error (from the backend or the system), cut to 200 characters.
    public let underlying: String?

    /// Makes an error; backends use this to report failures.
    public init(
        _ kind: Kind,
        entity: String? = nil,
        records: [UUID] = [],
        detail: String = "",
        underlying: String? = nil
    ) {
        self.kind = kind
        self.entity = entity
        self.records = records
        self.detail = String(detail.prefix(120))
        self.underlying = underlying.map { String($0.prefix(200)) }
    }

    public var description: String {
        var text = kind.description
        if let entity { text += " (\(entity))" }
        if !records.isEmpty {
            let shown = records.prefix(3).map { $0.uuidString.lowercased() }.joined(separator: ", ")
            text += ": " + shown + (records.count > 3 ? " and \(records.count - 3) more" : "")
        }
        if !detail.isEmpty { text += "; " + detail }
        if let underlying { text += "; " + underlying }
        return text
    }
}
