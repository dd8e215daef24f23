/// A handle over a factory that takes a parameter: ServiceContainerKit's `ServiceParamsProvider`.
///
/// ``bind(_:)`` fixes the parameter and gives a parameterless ``Provider``.
public struct ParamsProvider<Service: Sendable, Params: Sendable>: Sendable {
    private let factory: @Sendable (Params) throws -> Service

    /// A provider that calls `factory` with the parameter on every ``get(_:)``.
    public init(_ factory: @escaping @Sendable (Params) throws -> Service) {
        self.factory = factory
    }

    /// A new service made from `params`, or the error that prevented it.
    public func get(_ params: Params) throws(LocatorError) -> Service {
        do {
            return try factory(params)
        } catch let error as LocatorError {
            throw error
        } catch {
            let description = KeyDescription(serviceType: Service.self, name: nil, isTypedKey: false)
            throw LocatorError(
                .factoryFailed,
                key: description,
                detail: LocatorError.Detail(path: [description], underlying: error)
            )
        }
    }

    /// A new service made from `params`, or `nil` on any failure.
    public func getOptional(_ params: Params) -> Service? {
        try? get(params)
    }

    /// A parameterless provider that always passes `params`.
    public func bind(_ params: Params) -> Provider<Service> {
        let factory = self.factory
        return Provider(transient: { try factory(params) })
    }
}
