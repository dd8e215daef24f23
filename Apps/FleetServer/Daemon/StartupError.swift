/// Why fleetd cannot start with a configuration that is otherwise valid: the port is taken, the data directory
/// cannot be used, or another fleetd runs on its database. Its description is one line that names the address or path, says why, and what to do.
public struct StartupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case portUnavailable, dataDirectoryUnusable, databaseLocked
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The address cannot be bound: in use, not an address of this machine, or a privileged port.
        public static let portUnavailable = Code(.portUnavailable)
        /// The data directory is a file, sits below a file, or cannot be created or written.
        public static let dataDirectoryUnusable = Code(.dataDirectoryUnusable)
        /// Another fleetd runs on the same SQLite database.
        public static let databaseLocked = Code(.databaseLocked)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`portUnavailable`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code

    /// The code's name, bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }
    /// The address (`host:port`) or the path concerned.
    public let subject: String
    /// The whole message, in one line.
    public let message: String

    init(_ code: Code, subject: String, message: String) {
        self.code = code
        self.subject = subject
        self.message = message
    }

    /// The message, cut to 500 characters.
    public var description: String { String(message.prefix(500)) }
}
