/// A registration just made, returned by `register` so that more types can answer with the same instance.
///
/// ```swift
/// try locator.register(SQLiteStore.self) { _ in try SQLiteStore(path: path) }
///     .implements((any VehicleStore).self)
///     .implements((any HealthChecking).self)
///
/// try locator.resolve((any VehicleStore).self) === locator.resolve(SQLiteStore.self)   // true
/// ```
///
/// Ignore it when no forwarding is needed: `register` is `@discardableResult`.
public struct RegisteredService<Service: Sendable>: Sendable {
    let locator: Locator
    let key: RegistrationKey

    /// Makes `type` resolve to this registration's instance: one instance per lifetime, shared by the
    /// registered type and every forwarded one (Swinject's `implements`).
    ///
    /// The forwarded key takes the registration's name (none for a typed key). Each resolve of `type` resolves the
    /// registered key in the locator where the forwarding is registered and casts the instance, so a child's or a
    /// test's replacement of the registered key applies to the forwarded type too, and a later registration of
    /// that key is followed.
    ///
    /// - Throws: ``LocatorError/Code/readOnly`` when the locator is frozen. Resolving `type` throws
    ///   ``LocatorError/Code/typeMismatch`` when the instance is not a `Forwarded`, or when the registered key was
    ///   replaced by a forwarding itself (forwardings never chain, so they never loop).
    @discardableResult
    public func implements<Forwarded: Sendable>(_ type: Forwarded.Type) throws(LocatorError) -> Self {
        let forwarded = RegistrationKey(type, name: key.isTypedKey ? nil : key.name)
        let target = key
        // The registered type answers for itself already (and a forwarding to itself would replace it).
        guard forwarded != target else { return self }
        _ = try locator.insert(forwarded) {
            ForwardingEntry<Forwarded, Service>(key: forwarded, sequence: $0, target: target)
        }
        return self
    }
}
