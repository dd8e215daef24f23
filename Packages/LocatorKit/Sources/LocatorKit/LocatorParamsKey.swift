/// A typed key for a service made from a parameter of type `Params` (ServiceContainerKit's
/// `ServiceLocatorParamsKey`).
///
/// ```swift
/// let reportKey = LocatorParamsKey<Report, Int>("report")
/// try locator.register(reportKey) { _, year in Report(year: year) }
/// let report = try locator.resolve(reportKey, params: 2024)
/// ```
///
/// Keys with one identifier and different parameter types are different keys.
public struct LocatorParamsKey<Service: Sendable, Params: Sendable>: Hashable, Sendable, CustomStringConvertible {
    /// The key's identity.
    public let id: String

    /// Makes a key with the given identity.
    public init(_ id: String) {
        self.id = id
    }

    /// The key's identifier, service and parameter types.
    public var description: String { "LocatorParamsKey<\(Service.self), \(Params.self)>(\"\(id)\")" }

    var signature: ParamsSignatureKey { .typed(id, Params.self) }
}
