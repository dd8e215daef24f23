/// A backend failed a conformance check.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// What was expected and what happened, cut to 300 characters.
    public let message: String

    init(_ message: String) {
        self.message = String(message.prefix(300))
    }

    public var description: String { "conformance failure: " + message }
}
