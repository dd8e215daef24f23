import GRDB
import StoreKitLite

/// Maps GRDB and SQLite errors to ``StoreKitLite/StoreError``.
enum SQLiteErrors {
    static func map(_ error: any Error, operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let database = error as? DatabaseError else {
            return StoreError(.backend, detail: operation, reason: "\(error)", underlying: error)
        }
        let message = database.message ?? "\(database.resultCode)"
        switch database.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return StoreError(.notADatabase, detail: operation, reason: message, underlying: error)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError(.cannotOpen, detail: operation, reason: message, underlying: error)
        case .SQLITE_READONLY:
            return StoreError(.readOnly, detail: operation, reason: message, underlying: error)
        case .SQLITE_FULL:
            return StoreError(.diskFull, detail: operation, reason: message, underlying: error)
        case .SQLITE_CONSTRAINT where database.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY:
            return StoreError(.duplicateRecord, detail: operation, reason: message, underlying: error)
        case .SQLITE_CONSTRAINT where database.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE:
            return StoreError(.duplicateValue, detail: operation, reason: message, underlying: error)
        default:
            return StoreError(.backend, detail: operation, reason: message, underlying: error)
        }
    }
}
