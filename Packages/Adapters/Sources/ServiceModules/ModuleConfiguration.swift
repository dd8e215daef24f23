public import LocatorKit

/// A `LocatorModule` whose settings can be checked before anything is opened or connected.
public protocol ValidatedModule: LocatorModule {
    /// What is wrong with the module's settings, one sentence each; empty when nothing is. Opens nothing.
    func problems() -> [String]
}

/// The settings of one or more modules are wrong: every problem of every module, found before anything was opened.
public struct ModuleConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case invalidConfiguration, registrationFailed
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Settings are missing or mistyped.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A module's registrations could not be added to the locator (it is frozen, say).
        public static let registrationFailed = Code(.registrationFailed)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`invalidConfiguration`): stable, fit for a metric label or a log
        /// field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public let code: Code
    /// Every problem found, each prefixed with the module it belongs to.
    public let problems: [String]
    /// The locator's error, for ``Code/registrationFailed``.
    public let underlying: (any Error)?

    /// Creates an error: the problems found, or the locator's error that stopped the installation.
    public init(_ code: Code, problems: [String] = [], underlying: (any Error)? = nil) {
        self.code = code
        self.problems = problems
        self.underlying = underlying
    }

    /// A short, bounded form for logs and metric labels.
    public var shortDescription: String { code.name }

    public var description: String {
        switch code {
        case .registrationFailed:
            "the modules could not be installed: \(underlying.map { String(describing: $0).prefix(300) } ?? "unknown error")"
        default:
            "\(problems.count) configuration problem\(problems.count == 1 ? "" : "s"):\n"
                + problems.prefix(10).map { "  - " + String($0.prefix(150)) }.joined(separator: "\n")
                + (problems.count > 10 ? "\n  … and \(problems.count - 10) more" : "")
        }
    }
}

extension Locator {
    /// Checks every module's settings, then installs them all, in order; with any problem, installs none.
    ///
    /// - Throws: ``ModuleConfigurationError`` listing every problem of every module (``ModuleConfigurationError/Code/invalidConfiguration``),
    ///   or wrapping the locator's error (``ModuleConfigurationError/Code/registrationFailed``).
    public func installChecked(_ modules: [any ValidatedModule]) throws(ModuleConfigurationError) {
        let problems = modules.flatMap { $0.problems() }
        guard problems.isEmpty else {
            throw ModuleConfigurationError(.invalidConfiguration, problems: problems)
        }
        do {
            try install(modules)
        } catch {
            throw ModuleConfigurationError(.registrationFailed, problems: [], underlying: error)
        }
    }
}
