/// A handle that hides how a service is made: ServiceContainerKit's `ServiceProvider`.
///
/// Make one from an instance, a lazy or transient closure, a ``Locator`` (``Locator/provider(_:name:)``) or by
/// binding the parameter of a ``ParamsProvider``; register one with ``Locator/register(provider:as:name:)-(Provider<Service>,_,_)``.
/// A provider from a locator holds it weakly and resolves on each ``get()``, which makes it the way to break a
/// legitimate dependency cycle.
public struct Provider<Service: Sendable>: Sendable {
    private let body: @Sendable () throws(LocatorError) -> Service

    init(_ body: @escaping @Sendable () throws(LocatorError) -> Service) {
        self.body = body
    }

    /// A provider of an existing instance.
    public init(_ instance: Service) {
        self.body = { instance }
    }

    /// A provider that makes the service on first ``get()`` and then keeps it; a failure is
    /// retried on the next call, and concurrent first calls share one creation.
    public init(lazy factory: @escaping @Sendable () throws -> Service) {
        let host = Locator(name: "Provider")
        let registration = Registration<Service>(
            key: RegistrationKey(Service.self, name: nil),
            lifetime: .lazy,
            sequence: 0,
            factory: .sync { _ in try factory() }
        )
        self.body = { () throws(LocatorError) -> Service in
            try registration.resolve(requester: host, owner: host, node: nil)
        }
    }

    /// A provider that makes a new service on every ``get()``.
    public init(transient factory: @escaping @Sendable () throws -> Service) {
        let description = KeyDescription(serviceType: Service.self, name: nil, isTypedKey: false)
        self.body = { () throws(LocatorError) -> Service in
            do {
                return try factory()
            } catch let error as LocatorError {
                throw error
            } catch {
                throw LocatorError(
                    .factoryFailed,
                    key: description,
                    detail: LocatorError.Detail(path: [description], underlying: error)
                )
            }
        }
    }

    /// The service, or the error that prevented it.
    public func get() throws(LocatorError) -> Service {
        try body()
    }

    /// The service, or `nil` on any failure.
    public func getOptional() -> Service? {
        try? body()
    }
}
