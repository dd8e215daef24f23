/// Why a lookup by protocol or by name found no service.
///
/// Compare ``code`` with the static members (`error.code == .unknownName`); new codes may be added, so a `switch`
/// over codes needs a `default` branch. ``shortDescription`` is the code's name, fit for a metric label;
/// ``description`` is a short, bounded sentence for people.
public struct ServiceLookupError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case notRegistered
            case unknownName
            case resolutionFailed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// Nothing is registered for the protocol (or type) asked for.
        public static let notRegistered = Code(.notRegistered)
        /// No implementation is registered under the name asked for; ``ServiceLookupError/suggestions`` lists the
        /// nearest names that are.
        public static let unknownName = Code(.unknownName)
        /// A registration was found, but making the service failed (its factory threw, a dependency is missing, a
        /// cycle, a released weak instance); ``ServiceLookupError/underlying`` is LocatorKit's error.
        public static let resolutionFailed = Code(.resolutionFailed)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`notRegistered`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// The service type looked up, as Swift prints it (`VehicleStore` for `(any VehicleStore).self`).
    public let serviceType: String
    /// The name looked up, for lookups by name.
    public let name: String?
    /// The registrations nearest to what was asked for, nearest first, at most three: names for
    /// ``Code/unknownName``, registration keys for ``Code/notRegistered``.
    public let suggestions: [String]
    /// The error underneath, LocatorKit's `LocatorError`, when one caused this.
    public let underlying: (any Error)?

    init(
        _ code: Code,
        serviceType: Any.Type,
        name: String? = nil,
        suggestions: [String] = [],
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.serviceType = String(describing: serviceType)
        self.name = name
        self.suggestions = Array(suggestions.prefix(3))
        self.underlying = underlying
    }

    /// The code's name (`unknownName`): one of a fixed set, fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    public var description: String {
        var text = "ServiceLookupError.\(code): \(serviceType.prefix(100))"
        if let name { text += " named \"\(name.prefix(100))\"" }
        switch code {
        case .unknownName: text += " is not registered"
        case .notRegistered: text += " is not registered"
        default: text += " could not be made"
        }
        if !suggestions.isEmpty {
            text += "; nearest: " + suggestions.map { String($0.prefix(80)) }.joined(separator: ", ")
        }
        if let underlying, code == .resolutionFailed {
            text += "; " + String(describing: underlying).prefix(300)
        }
        return text
    }
}
