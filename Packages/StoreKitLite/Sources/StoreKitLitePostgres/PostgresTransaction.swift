import Logging
import PostgresNIO
import StoreKitLite

/// Runs one transaction on a pooled connection, and makes sure that, whatever happens, the connection goes back to
/// the pool outside any transaction, and the caller hears of a failure instead of waiting for it.
///
/// `PostgresClient.withTransaction` sends a `ROLLBACK` after any failure, also on a connection the server has just
/// ended (a restart, `pg_terminate_backend`): the `ROLLBACK` then waits for an answer that never comes, the caller
/// waits with it, and the lease is never given back. Here:
/// - after a failure that ends the connection (the server's `FATAL` error, a closed socket), nothing more is sent:
///   the server rolls back a transaction whose session ends, and the connection is closed, so the pool replaces it;
/// - after any other failure the transaction is rolled back, and if that fails too the connection is closed rather
///   than handed back still inside the transaction;
/// - a connection lost while `COMMIT` is under way fails with ``StoreKitLite/StoreError/Code/connectionLost`` and a
///   detail saying the outcome is unknown (the batch is then either entirely written or not at all).
///
/// Each session also starts with an `idle_in_transaction_session_timeout` (see
/// ``PostgresBackend/Configuration/idleInTransactionTimeout``), so a transaction left open by a client that stopped
/// mid-way cannot hold locks and the server's transaction horizon back for long.
enum PostgresTransaction {
    static func run<Result: Sendable>(
        on pool: PostgresPool,
        operation: String,
        logger: Logger,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await pool.withConnection { connection in
            try await run(on: connection, operation: operation, logger: logger, body)
        }
    }

    static func run<Result: Sendable>(
        on connection: PostgresConnection,
        operation: String,
        logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            try await send("BEGIN", on: connection, logger: logger)
        } catch {
            await abandon(connection, after: error, logger: logger)
            throw error
        }
        let result: Result
        do {
            result = try await body(connection)
        } catch {
            await abandon(connection, after: error, logger: logger)
            throw error
        }
        do {
            try await send("COMMIT", on: connection, logger: logger)
        } catch {
            guard PostgresErrors.endsConnection(error) || connection.isClosed else {
                // The server answered: a failed COMMIT has rolled the transaction back.
                throw error
            }
            try? await connection.close()
            throw StoreError(
                .connectionLost,
                detail: operation + ": the connection broke during COMMIT; the batch is written entirely or not at all",
                reason: "\(error)",
                underlying: error
            )
        }
        return result
    }

    /// Ends a transaction that failed: rolls it back, or closes the connection when it is gone, when the failure
    /// ended it, or when the rollback fails (the pool then opens a new connection instead of lending this one).
    private static func abandon(_ connection: PostgresConnection, after error: any Error, logger: Logger) async {
        if !connection.isClosed, !PostgresErrors.endsConnection(error) {
            do {
                try await send("ROLLBACK", on: connection, logger: logger)
                return
            } catch {
                // Fall through: close it.
            }
        }
        try? await connection.close()
    }

    /// Sends one statement without parameters and reads its answer.
    private static func send(_ statement: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
    }
}

extension PostgresConnection {
    /// Runs a statement and reads its answer, discarding the rows; returns how many there were. On a connection
    /// that is already closed, fails at once with ``StoreKitLite/StoreError/Code/connectionLost`` without sending
    /// anything (PostgresNIO may never answer a query written to a closed channel).
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        guard !isClosed else {
            throw StoreError(.connectionLost, reason: "the connection is closed")
        }
        return try await self.query(query, logger: logger).consume()
    }
}
