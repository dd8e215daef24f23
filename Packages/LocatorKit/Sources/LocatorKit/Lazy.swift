import Synchronization

/// A service resolved the first time it is read, then kept: Swinject's `Lazy<Service>`.
///
/// Get one from ``Locator/lazy(_:name:)``, or from ``Resolver/lazy(_:name:)`` in a factory. Nothing is resolved
/// until ``instance`` is first read, so a service can depend on something expensive it may never use:
///
/// ```swift
/// final class ReportService: Sendable {
///     private let exporter: Lazy<any Exporter>
///     init(exporter: Lazy<any Exporter>) { self.exporter = exporter }
///     func export(_ report: Report) throws { try exporter.instance.export(report) }
/// }
///
/// try locator.register(ReportService.self) { r in ReportService(exporter: r.lazy()) }
/// ```
///
/// The first read resolves the service; the handle keeps what it got, whatever the registration's lifetime, and
/// every later read, from this handle or a copy of it, gives that instance. Concurrent first reads resolve once:
/// the others wait and get the same instance. A failed resolve is not kept: the readers that waited for it get its
/// error and the next read resolves again, as with the ``Lifetime/lazy`` lifetime.
///
/// The handle holds its locator weakly, so a service can keep one without keeping its locator alive; a first read
/// after the locator was released throws ``LocatorError/Code/released``. Errors of the resolve come as from a
/// factory that resolves a dependency: ``LocatorError/Code/factoryFailed`` whose path ends at `Lazy<Service>` and
/// whose ``LocatorError/underlying`` is the resolve's error (a cycle, or a failing factory, keeps its own path).
/// Reading the handle while it is being made, from the service's own construction, is a
/// ``LocatorError/Code/cycle``. ``instance`` is synchronous: a service with an `async` factory must have been
/// created already.
///
/// Inside an override scope (`LocatorKitTesting`), an instance built on a replaced service is kept by the scope,
/// never by the handle, as for a singleton. A read after the first looks nothing up: it costs less than resolving
/// an existing singleton.
public struct Lazy<Service: Sendable>: Sendable {
    /// The one creation: a ``Lifetime/lazy`` registration of its own, so the handle shares the locator's
    /// single-flight creation, waiting, failure and cycle handling.
    private let registration: Registration<Service>
    private let reference: WeakLocator

    init(locator: Locator, name: String?) {
        reference = WeakLocator(locator)
        registration = Registration(
            key: RegistrationKey(Lazy<Service>.self, name: name),
            lifetime: .lazy,
            sequence: 0,
            factory: .sync { resolver in try resolver.resolve(Service.self, name: name) },
            description: KeyDescription(serviceType: Lazy<Service>.self, name: name, isTypedKey: false)
        )
    }

    /// The service: resolved by the first read, the same instance on every later read.
    ///
    /// - Throws: Until an instance is kept, the error of the resolve (see ``Lazy``); never after.
    public var instance: Service {
        get throws(LocatorError) {
            let scope = OverrideScope.active
            if scope == nil, registration.isPublished.load(ordering: .acquiring) {
                return registration.publishedInstance(as: Service.self)
            }
            guard let locator = reference.locator else {
                // Nothing can be made without the locator; an instance kept before is all there is.
                guard registration.isPublished.load(ordering: .acquiring) else {
                    throw .with(.released, registration.keyDescription, note: "the locator behind it was released")
                }
                return registration.publishedInstance(as: Service.self)
            }
            if let scope {
                let node = ThreadContext.current(in: ThreadContext.stack())
                return try registration.resolveInScope(scope, owner: locator, node: node).0
            }
            return try registration.resolve(requester: locator, owner: locator, node: nil)
        }
    }
}
