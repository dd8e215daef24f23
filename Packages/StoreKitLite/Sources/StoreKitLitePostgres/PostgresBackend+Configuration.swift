import Foundation
public import PostgresNIO
public import StoreKitLite

extension PostgresBackend {
    /// Where the server is, who to connect as, and which schema holds the store: what a backend that runs its own
    /// `PostgresClient` needs (``PostgresBackend/init(configuration:logger:)``).
    public struct Configuration: Sendable {
        /// Whether connections use TLS.
        public enum TLS: Sendable {
            /// Plain TCP.
            case disable
            /// TLS when the server offers it, plain TCP otherwise (libpq's `sslmode=prefer`).
            case prefer(TLSConfiguration)
            /// TLS, or no connection (libpq's `sslmode=require`).
            case require(TLSConfiguration)
        }

        /// The server's host name or IP address.
        public var host: String
        /// The server's TCP port.
        public var port: Int
        /// The role to connect as.
        public var username: String
        /// The role's password, if the server asks for one.
        public var password: String?
        /// The database; `nil` connects to the database named after the role.
        public var database: String?
        /// Whether connections use TLS.
        public var tls: TLS
        /// The schema holding the store's tables (created by ``PostgresBackend/migrate(to:)`` if missing).
        public var schema: String
        /// How long a connection attempt may take.
        public var connectTimeout: Duration = .seconds(10)
        /// The most connections the client keeps open.
        public var maximumConnections: Int = 20
        /// The fewest new records of one entity that a batch writes with one `COPY … FROM STDIN` instead of
        /// multi-row `INSERT`s; `nil` never uses `COPY` (see ``PostgresBackend/copyThreshold``).
        public var copyThreshold: Int? = PostgresBackend.defaultCopyThreshold
        /// Which commits the backend's ``StoreKitLite/StoreBackend/committedChanges()`` delivers; by default every
        /// process's, through the store's change log (one pooled connection then listens for them).
        public var changeFeed: ChangeFeed = .allProcesses()
        /// The longest one statement may run, waiting for locks included, before the server stops it (PostgreSQL's
        /// `statement_timeout`, set on every connection the backend opens); `nil` (the default) sets no limit. A
        /// stopped statement fails its operation with ``StoreKitLite/StoreError/Code/timedOut``, and a write it was
        /// part of writes nothing.
        public var statementTimeout: Duration?
        /// The longest a session may sit idle inside an open transaction before the server ends it (PostgreSQL's
        /// `idle_in_transaction_session_timeout`, set on every connection the backend opens); `nil` sets no limit.
        /// The backend sends a transaction's statements back to back, so its own sessions are never idle in a
        /// transaction for long; the limit is a safety net for a client that stops mid-transaction (a process
        /// frozen in a debugger, a lost network path), whose open transaction would otherwise hold locks and keep
        /// every store's change-log followers on the server waiting. 60 seconds by default.
        public var idleInTransactionTimeout: Duration? = .seconds(60)

        /// A configuration for a server over TCP.
        public init(
            host: String,
            port: Int = 5432,
            username: String,
            password: String? = nil,
            database: String? = nil,
            tls: TLS = .disable,
            schema: String = "public"
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls
            self.schema = schema
        }

        /// A configuration from a connection URL:
        /// `postgres://user:password@host:port/database?sslmode=disable&schema=fleet&statement_timeout=5s`.
        ///
        /// `sslmode` is `disable`, `prefer` or `require` (the default is `prefer`, as for libpq; `prefer` and
        /// `require` use the system's trust roots); `schema` defaults to `public`. `statement_timeout` and
        /// `idle_in_transaction_session_timeout` set ``statementTimeout`` and ``idleInTransactionTimeout``: a whole
        /// number of milliseconds, or with the unit `ms`, `s` or `min` (`250ms`, `5s`, `2min`), as PostgreSQL
        /// writes them; `0` turns the limit off. `pool_max_conns` sets ``maximumConnections``, `copy_threshold`
        /// sets ``copyThreshold`` (a number, or `off`). User and password may be percent-encoded.
        ///
        /// - Throws: ``StoreKitLite/StoreError/Code/cannotOpen`` for a URL that is not a PostgreSQL URL; the
        ///   message never repeats the password.
        public init(url: String) throws(StoreError) {
            guard let components = URLComponents(string: url),
                components.scheme == "postgres" || components.scheme == "postgresql",
                let host = components.host, !host.isEmpty
            else {
                throw StoreError(.cannotOpen, detail: "not a postgres:// URL with a host")
            }
            let query = components.queryItems ?? []
            func item(_ name: String) -> String? { query.last { $0.name == name }?.value }
            let tls: TLS
            switch item("sslmode") ?? "prefer" {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            default: throw StoreError(.cannotOpen, detail: "unknown sslmode in the URL")
            }
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            self.init(
                host: host,
                port: components.port ?? 5432,
                username: components.user ?? "postgres",
                password: components.password,
                database: path.isEmpty ? nil : path,
                tls: tls,
                schema: item("schema") ?? "public"
            )
            if let value = item("statement_timeout") {
                statementTimeout = try Self.timeout(value, name: "statement_timeout")
            }
            if let value = item("idle_in_transaction_session_timeout") {
                idleInTransactionTimeout = try Self.timeout(value, name: "idle_in_transaction_session_timeout")
            }
            if let value = item("copy_threshold") {
                if value == "off" {
                    copyThreshold = nil
                } else {
                    guard let count = Int(value), count >= 1 else {
                        throw StoreError(
                            .cannotOpen,
                            detail: "copy_threshold in the URL is not a positive number or off"
                        )
                    }
                    copyThreshold = count
                }
            }
            if let value = item("pool_max_conns") {
                guard let count = Int(value), (1...10_000).contains(count) else {
                    throw StoreError(.cannotOpen, detail: "pool_max_conns in the URL is not a number from 1 to 10000")
                }
                maximumConnections = count
            }
        }

        /// A timeout from a URL: whole milliseconds, or with the unit `ms`, `s` or `min`; zero is no limit.
        private static func timeout(_ text: String, name: String) throws(StoreError) -> Duration? {
            let units: [(suffix: String, milliseconds: Int64)] = [("ms", 1), ("min", 60_000), ("s", 1_000)]
            var digits = Substring(text.trimmingCharacters(in: .whitespaces))
            var scale: Int64 = 1
            for unit in units where digits.hasSuffix(unit.suffix) {
                digits = digits.dropLast(unit.suffix.count)
                scale = unit.milliseconds
                break
            }
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                let amount = Int64(digits), amount <= Int64(Int32.max) / scale
            else {
                throw StoreError(.cannotOpen, detail: "\(name) in the URL is not a number of ms, s or min")
            }
            return amount == 0 ? nil : .milliseconds(amount * scale)
        }

        /// The session settings every connection of the backend starts with (startup parameters, never SQL).
        var startupParameters: [(String, String)] {
            func milliseconds(_ duration: Duration) -> String {
                let (seconds, attoseconds) = duration.components
                let total = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
                // PostgreSQL takes at most Int32.max milliseconds; at least 1, since 0 would turn the limit off.
                return String(min(max(total, 1), Int64(Int32.max)))
            }
            var parameters: [(String, String)] = []
            if let statementTimeout {
                parameters.append(("statement_timeout", milliseconds(statementTimeout)))
            }
            if let idleInTransactionTimeout {
                parameters.append(("idle_in_transaction_session_timeout", milliseconds(idleInTransactionTimeout)))
            }
            return parameters
        }

        /// The configuration of the client the backend runs.
        var client: PostgresClient.Configuration {
            let clientTLS: PostgresClient.Configuration.TLS =
                switch tls {
                case .disable: .disable
                case .prefer(let configuration): .prefer(configuration)
                case .require(let configuration): .require(configuration)
                }
            var client = PostgresClient.Configuration(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: clientTLS
            )
            client.options.connectTimeout = connectTimeout
            client.options.maximumConnections = maximumConnections
            client.options.additionalStartupParameters = startupParameters
            return client
        }

        /// The configuration of the single connection that checks the server before the client is used.
        func connection() throws -> PostgresConnection.Configuration {
            let connectionTLS: PostgresConnection.Configuration.TLS =
                switch tls {
                case .disable: .disable
                case .prefer(let configuration): .prefer(try NIOSSLContext(configuration: configuration))
                case .require(let configuration): .require(try NIOSSLContext(configuration: configuration))
                }
            var connection = PostgresConnection.Configuration(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: connectionTLS
            )
            let (seconds, attoseconds) = connectTimeout.components
            connection.options.connectTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            connection.options.additionalStartupParameters = startupParameters
            return connection
        }
    }
}
