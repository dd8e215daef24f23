/// One failed check: where (`vehicles[2].plate`) and what (`must not be empty`).
public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
    /// The field path, such as `vehicles[2].plate`; empty for the validated value itself.
    public let path: String
    /// What is wrong, such as `must not be empty`.
    public let message: String

    /// Creates a failure.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, or just the message for an empty path.
    public var description: String {
        path.isEmpty ? message : "\(path): \(message)"
    }

    /// The failure as seen from a parent, with `prefix` (a field name or `name[index]`) in front of the path.
    func prefixed(with prefix: String) -> ValidationFailure {
        ValidationFailure(path: FieldPath.join(prefix, path), message: message)
    }
}
