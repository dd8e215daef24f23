/// The error every LocatorKit operation throws.
///
/// Match on ``code``; read the context (``serviceType``, ``name``, ``path``, ``underlying``, ``candidates``,
/// ``failures``) to explain it. Text is built only when it is read, so a miss stays cheap.
///
/// ```swift
/// do {
///     _ = try locator.resolve(Database.self)
/// } catch where error.code == .notRegistered {
///     print(error)  // names the key and its near candidates
/// }
/// ```
public struct LocatorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. New codes may be added in minor releases, so switch with a `default`.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Base: String, Sendable, CaseIterable {
            case notRegistered, typeMismatch, wrongParams, released, readOnly, cloneDenied, factoryFailed, cycle
            case asyncRequired, validationFailed, ambiguousParams
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// No registration matches the key in the locator or its ancestors.
        public static let notRegistered = Code(.notRegistered)
        /// A registration was found but holds another type than the one asked for.
        public static let typeMismatch = Code(.typeMismatch)
        /// Parameters of the wrong type were passed, or none where the factory needs them.
        public static let wrongParams = Code(.wrongParams)
        /// No factory takes exactly the argument types, and the arguments convert to the parameter types of several
        /// (for example two protocols they conform to); the error names those factories.
        public static let ambiguousParams = Code(.ambiguousParams)
        /// A weakly held instance was released and there is no factory to make another.
        public static let released = Code(.released)
        /// The locator is frozen and refuses changes.
        public static let readOnly = Code(.readOnly)
        /// The locator refuses to be cloned.
        public static let cloneDenied = Code(.cloneDenied)
        /// A factory threw; ``LocatorError/path`` and ``LocatorError/underlying`` say where and what.
        public static let factoryFailed = Code(.factoryFailed)
        /// The registrations depend on each other in a cycle; ``LocatorError/path`` names it.
        public static let cycle = Code(.cycle)
        /// The service has an `async` factory and has not been created yet: resolve it with `await`.
        public static let asyncRequired = Code(.asyncRequired)
        /// ``Locator/validate()`` found failures; ``LocatorError/failures`` lists all of them.
        public static let validationFailed = Code(.validationFailed)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Base.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`notRegistered`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: base) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// Context that only some errors carry, kept out of line so the error stays small.
    final class Detail: Sendable {
        let path: [KeyDescription]
        let underlying: (any Error)?
        let searched: Locator?
        let failures: [LocatorError]
        let note: String?

        init(
            path: [KeyDescription] = [],
            underlying: (any Error)? = nil,
            searched: Locator? = nil,
            failures: [LocatorError] = [],
            note: String? = nil
        ) {
            self.path = path
            self.underlying = underlying
            self.searched = searched
            self.failures = failures
            self.note = note
        }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`notRegistered`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }
    let key: KeyDescription?
    let detail: Detail?

    init(_ code: Code, key: KeyDescription? = nil, detail: Detail? = nil) {
        self.code = code
        self.key = key
        self.detail = detail
    }

    /// The service type of the key involved, if any.
    public var serviceType: (any Any.Type)? { key?.serviceType }

    /// The registration name (or typed key identifier) involved, if any.
    public var name: String? { key?.name }

    /// The key involved, as text: `Database`, `Database (name: "replica")` or `Database (key: "primary")`.
    public var keyDescription: String? { key?.text }

    /// The dependency path from the root resolve to the failing registration, for example `["A", "B", "C"]`;
    /// for a cycle the first and last elements name the same registration.
    public var path: [String] { detail?.path.map(\.text) ?? [] }

    /// The error the factory threw, for ``Code/factoryFailed``.
    public var underlying: (any Error)? { detail?.underlying }

    /// The individual failures collected by ``Locator/validate()``.
    public var failures: [LocatorError] { detail?.failures ?? [] }

    /// Registrations that look like what was asked for (same type under another name, or a similar type name),
    /// computed when read.
    public var candidates: [String] {
        guard code == .notRegistered, let key, let locator = detail?.searched else { return [] }
        return locator.nearCandidates(for: key)
    }

    /// A short, bounded description of the error and its context.
    public var description: String {
        let keyText = key?.text ?? "?"
        switch code {
        case .notRegistered:
            let near = candidates.prefix(5)
            let hint = near.isEmpty ? "" : "; near candidates: " + near.joined(separator: ", ")
            return "LocatorError.notRegistered: \(keyText) is not registered\(hint)"
        case .factoryFailed:
            let cause = underlying.map { String(describing: $0).prefix(300) } ?? "unknown error"
            let note = detail?.note.map { " (\($0))" } ?? ""
            return "LocatorError.factoryFailed: \(path.joined(separator: " → "))\(note): \(cause)"
        case .cycle:
            return "LocatorError.cycle: dependency cycle \(path.joined(separator: " → "))"
        case .validationFailed:
            let lines = failures.prefix(20).map { "  - \($0.description)" }
            let more = failures.count > 20 ? "\n  … and \(failures.count - 20) more" : ""
            return "LocatorError.validationFailed: \(failures.count) registration(s) failed\n"
                + lines.joined(separator: "\n") + more
        default:
            let note = detail?.note.map { ": \($0)" } ?? ""
            return "LocatorError.\(code): \(keyText)\(note)"
        }
    }
}

extension LocatorError {
    /// Whether this error already explains a failure along a path and should pass through enclosing factories.
    var carriesPath: Bool { code == .factoryFailed || code == .cycle }

    static func notRegistered(_ key: KeyDescription, searched: Locator) -> LocatorError {
        LocatorError(.notRegistered, key: key, detail: Detail(searched: searched))
    }

    static func cycle(_ path: [Entry]) -> LocatorError {
        LocatorError(.cycle, key: path.last?.keyDescription, detail: Detail(path: path.map(\.keyDescription)))
    }

    static func factoryFailed(_ path: [Entry], underlying: any Error) -> LocatorError {
        LocatorError(
            .factoryFailed,
            key: path.last?.keyDescription,
            detail: Detail(path: path.map(\.keyDescription), underlying: underlying)
        )
    }

    /// A post-construction hook (`initCompleted`) of `entry` threw.
    static func hookFailed(_ entry: Entry, underlying: any Error) -> LocatorError {
        LocatorError(
            .factoryFailed,
            key: entry.keyDescription,
            detail: Detail(path: [entry.keyDescription], underlying: underlying, note: "initCompleted")
        )
    }

    static func with(_ code: Code, _ key: KeyDescription?, note: String) -> LocatorError {
        LocatorError(code, key: key, detail: Detail(note: note))
    }
}
