import Foundation
import PostgresNIO
import StoreKitLite

/// Maps PostgresNIO's errors to ``StoreKitLite/StoreError``. Descriptions carry the server's message and SQLSTATE,
/// never its `DETAIL` field (which can quote row values) nor the query's bound values.
enum PostgresErrors {
    static func map(_ error: any Error, operation: String) -> StoreError {
        switch error {
        case let error as StoreError:
            guard error.detail.isEmpty else { return error }
            return StoreError(
                error.code,
                entity: error.entity,
                records: error.records,
                detail: operation,
                reason: error.reason,
                underlying: error.underlying
            )
        case let error as PostgresTransactionError:
            // The error that ended the transaction: BEGIN's, the body's (a conflict, say) or COMMIT's.
            if let cause = error.beginError ?? error.closureError ?? error.commitError {
                return map(cause, operation: operation)
            }
            return StoreError(.backend, detail: operation, reason: "the transaction failed", underlying: error)
        case let error as PSQLError:
            return map(error, operation: operation)
        case is CancellationError:
            return StoreError(.backend, detail: operation, reason: "cancelled", underlying: error)
        default:
            // PostgresClient's pool reports a server it has not reached for a while with `ConnectionPoolError`
            // (`connectionCreationCircuitBreakerTripped`), a type of a module this one does not import.
            if String(describing: type(of: error)) == "ConnectionPoolError" {
                return StoreError(
                    .cannotOpen,
                    detail: operation,
                    reason: "no connection to the server: \(error)",
                    underlying: error
                )
            }
            return StoreError(.backend, detail: operation, reason: "\(error)", underlying: error)
        }
    }

    /// Whether `error` means the connection it happened on is gone or about to go (the server ended the session,
    /// or the socket broke): nothing more may be sent on it, not even a `ROLLBACK`.
    static func endsConnection(_ error: any Error) -> Bool {
        if let error = error as? StoreError { return error.code == .connectionLost }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .uncleanShutdown, .connectionError, .clientClosedConnection,
            .messageDecodingFailure, .unexpectedBackendMessage:
            return true
        case .server:
            let severity = error.serverInfo?[.severity] ?? ""
            return severity == "FATAL" || severity == "PANIC"
        default:
            return false
        }
    }

    private static func map(_ error: PSQLError, operation: String) -> StoreError {
        switch error.code {
        case .server:
            return mapServer(error, operation: operation)
        case .serverClosedConnection, .uncleanShutdown:
            // The connection was open and broke: the server restarted or ended the session.
            let cause = error.underlying.map { "\($0)" } ?? error.code.description
            return StoreError(
                .connectionLost,
                detail: operation,
                reason: "\(error.code): \(cause)",
                underlying: error
            )
        case .connectionError, .sslUnsupported, .failedToAddSSLHandler,
            .receivedUnencryptedDataAfterSSLRequest, .unsupportedAuthMechanism, .authMechanismRequiresPassword,
            .saslError:
            let cause = error.underlying.map { "\($0)" } ?? error.code.description
            return StoreError(.cannotOpen, detail: operation, reason: "\(error.code): \(cause)", underlying: error)
        case .clientClosedConnection:
            // A connection this process closed because it broke (see PostgresTransaction), met again by a statement
            // already on its way: the connection was lost, the store is not closed.
            return StoreError(
                .connectionLost,
                detail: operation,
                reason: "the connection was closed after it broke",
                underlying: error
            )
        case .poolClosed:
            return StoreError(
                .notInitialized,
                detail: operation,
                reason: "the PostgreSQL client is closed",
                underlying: error
            )
        default:
            return StoreError(.backend, detail: operation, reason: error.code.description, underlying: error)
        }
    }

    private static func mapServer(_ error: PSQLError, operation: String) -> StoreError {
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = "\(error.serverInfo?[.message] ?? "server error") (SQLSTATE \(state))"
        let code: StoreError.Code =
            switch state {
            // unique_violation: of the primary key (`<table>_pkey`, the record ID) or of a unique index.
            case "23505":
                (error.serverInfo?[.constraintName] ?? "").hasSuffix("_pkey") ? .duplicateRecord : .duplicateValue
            // serialization_failure, deadlock_detected: another transaction changed the same rows.
            case "40001", "40P01": .conflict
            // invalid_authorization_specification, invalid_password, invalid_catalog_name (no such database),
            // cannot_connect_now, too_many_connections, insufficient_privilege
            case "28000", "28P01", "3D000", "57P03", "53300", "42501": .cannotOpen
            // query_canceled (statement_timeout; the backend sends no cancel requests of its own), lock_not_available
            // (lock_timeout)
            case "57014", "55P03": .timedOut
            // admin_shutdown (the server stops or restarts, or pg_terminate_backend), crash_shutdown,
            // idle_in_transaction_session_timeout, idle_session_timeout: the server ended the session.
            case "57P01", "57P02", "25P03", "57P05": .connectionLost
            // read_only_sql_transaction
            case "25006": .readOnly
            // disk_full, out of storage
            case "53100": .diskFull
            default: .backend
            }
        return StoreError(code, detail: operation, reason: message, underlying: error)
    }
}
