/// Every failed check of a value, thrown by ``Validatable/validate()``.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failures in declaration order; never empty.
    public let failures: [ValidationFailure]

    /// Creates an error from failures.
    public init(failures: [ValidationFailure]) {
        self.failures = failures
    }

    /// The paths that failed, in order, without repeats.
    public var paths: [String] {
        var seen = Set<String>()
        return failures.map(\.path).filter { seen.insert($0).inserted }
    }

    /// `N validation failures: a: …; b: …`, listing at most ten.
    public var description: String {
        let count = failures.count
        let listed = failures.prefix(10).map(\.description).joined(separator: "; ")
        let more = count > 10 ? "; and \(count - 10) more" : ""
        return "\(count) validation failure\(count == 1 ? "" : "s"): \(listed)\(more)"
    }
}
