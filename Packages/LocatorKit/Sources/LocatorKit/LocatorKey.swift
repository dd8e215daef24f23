/// A key that carries its service type: `resolve(key)` needs no type annotation.
///
/// ```swift
/// extension LocatorKey where Service == any Database {
///     static let primary = LocatorKey("primary")
///     static let replica = LocatorKey("replica")
/// }
/// try locator.register(.primary) { _ in PostgresDatabase(host: "db1") }
/// let database = try locator.resolve(LocatorKey.primary)
/// ```
///
/// Typed keys live in their own namespace, identified by ``id``. Resolving a key whose identifier was registered
/// with another service type throws ``LocatorError/Code/typeMismatch``.
public struct LocatorKey<Service: Sendable>: Hashable, Sendable, CustomStringConvertible {
    /// The key's identity.
    public let id: String

    /// Makes a key with the given identity.
    public init(_ id: String) {
        self.id = id
    }

    /// The key's identifier and service type.
    public var description: String { "LocatorKey<\(Service.self)>(\"\(id)\")" }

    var registrationKey: RegistrationKey { .typed(id) }
}
