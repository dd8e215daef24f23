/// The identity of a registration: a service type (or the typed-key namespace) and an optional name.
struct RegistrationKey: Hashable, Sendable {
    let type: ObjectIdentifier
    let name: String?

    @inline(__always)
    init(type: ObjectIdentifier, name: String?) {
        self.type = type
        self.name = name
    }

    @inline(__always)
    init<Service>(_ service: Service.Type, name: String?) {
        self.init(type: ObjectIdentifier(service), name: name)
    }

    /// The key of a ``LocatorKey`` or ``LocatorParamsKey``: typed keys live in their own namespace, so the
    /// service type is checked at resolve time and a mismatch is reported instead of a miss.
    @inline(__always)
    static func typed(_ id: String) -> RegistrationKey {
        RegistrationKey(type: ObjectIdentifier(TypedKeyNamespace.self), name: id)
    }

    var isTypedKey: Bool { type == ObjectIdentifier(TypedKeyNamespace.self) }
}

/// Marker type whose identifier namespaces typed keys.
enum TypedKeyNamespace {}
