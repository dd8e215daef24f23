public import LocatorKit

/// A `LocatorModule` whose settings can be checked before anything is opened or connected.
public protocol ValidatedModule: LocatorModule {
    /// What is wrong with the module's settings, one sentence each; empty when nothing is. Opens nothing.
    func problems() -> [String]
}

/// The settings of one or more modules are wrong: every problem of every module, found before anything was opened.
public struct ModuleConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// Settings are missing or mistyped.
        public static let invalidConfiguration = Code(name: "invalid_configuration")
        /// A module's registrations could not be added to the locator (it is frozen, say).
        public static let registrationFailed = Code(name: "registration_failed")

        public var description: String { name }
    }

    /// What kind of failure this is.
    public let code: Code
    /// Every problem found, each prefixed with the module it belongs to.
    public let problems: [String]
    /// The locator's error, for ``Code/registrationFailed``.
    public let underlying: (any Error)?

    /// A short, bounded form for logs and metric labels.
    public var shortDescription: String { code.description }

    public var description: String {
        switch code {
        case .registrationFailed:
            "the modules could not be installed: \(underlying.map { "\($0)" } ?? "unknown error")"
        default:
            "\(problems.count) configuration problem\(problems.count == 1 ? "" : "s"):\n"
                + problems.map { "  - " + $0 }.joined(separator: "\n")
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
            throw ModuleConfigurationError(code: .invalidConfiguration, problems: problems, underlying: nil)
        }
        do {
            try install(modules)
        } catch {
            throw ModuleConfigurationError(code: .registrationFailed, problems: [], underlying: error)
        }
    }
}
