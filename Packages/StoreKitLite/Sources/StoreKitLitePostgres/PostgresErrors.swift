import Foundation
import PostgresNIO
import StoreKitLite

/// Maps PostgresNIO's errors to ``StoreKitLite/StoreError``. Descriptions carry the server's message and SQLSTATE,
/// never its `DETAIL` field (which can quote row values) nor the query's bound values.
enum PostgresErrors {
    static func map(_ error: any Error, operation: String) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
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

    private static func map(_ error: PSQLError, operation: String) -> StoreError {
        switch error.code {
        case .server:
            return mapServer(error, operation: operation)
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .sslUnsupported, .failedToAddSSLHandler,
            .receivedUnencryptedDataAfterSSLRequest, .unsupportedAuthMechanism, .authMechanismRequiresPassword,
            .saslError:
            let cause = error.underlying.map { "\($0)" } ?? error.code.description
            return StoreError(.cannotOpen, detail: operation, reason: "\(error.code): \(cause)", underlying: error)
        case .poolClosed, .clientClosedConnection:
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
            // unique_violation
            case "23505": .duplicateRecord
            // serialization_failure, deadlock_detected: another transaction changed the same rows.
            case "40001", "40P01": .conflict
            // invalid_authorization_specification, invalid_password, invalid_catalog_name (no such database),
            // cannot_connect_now, too_many_connections, insufficient_privilege
            case "28000", "28P01", "3D000", "57P03", "53300", "42501": .cannotOpen
            // read_only_sql_transaction
            case "25006": .readOnly
            // disk_full, out of storage
            case "53100": .diskFull
            default: .backend
            }
        return StoreError(code, detail: operation, reason: message, underlying: error)
    }
}
