/// The identity of a registration: a service type (or the typed-key namespace) and an optional name.
///
/// A registration whose factory takes parameters is keyed by its signature: the `type` is the identifier of
/// `ParamsSignature<Service, Parameters>` (or `TypedParamsNamespace<Parameters>` for a ``LocatorParamsKey``), so
/// registrations of one service that differ only in their parameter types live side by side, and the key of a
/// parameterless registration is exactly what it always was (the common lookup pays nothing for signatures).
struct RegistrationKey: Hashable, Sendable {
    let type: ObjectIdentifier
    let name: String?
    /// Whether this is the key of a ``LocatorKey`` or ``LocatorParamsKey`` (`name` is then the key's identifier).
    let isTypedKey: Bool

    @inline(__always)
    init(type: ObjectIdentifier, name: String?, isTypedKey: Bool = false) {
        self.type = type
        self.name = name
        self.isTypedKey = isTypedKey
    }

    @inline(__always)
    init<Service>(_ service: Service.Type, name: String?) {
        self.init(type: ObjectIdentifier(service), name: name)
    }

    /// The key of a ``LocatorKey``: typed keys live in their own namespace, so the service type is checked at
    /// resolve time and a mismatch is reported instead of a miss.
    @inline(__always)
    static func typed(_ id: String) -> RegistrationKey {
        RegistrationKey(type: ObjectIdentifier(TypedKeyNamespace.self), name: id, isTypedKey: true)
    }

    /// The key of a factory of `Service` taking `Signature` (one parameter type, or ``ParamsPair``).
    static func parameterised<Service, Signature>(
        _ service: Service.Type,
        name: String?,
        signature: Signature.Type
    ) -> RegistrationKey {
        RegistrationKey(type: ObjectIdentifier(ParamsSignature<Service, Signature>.self), name: name)
    }

    /// The key of a ``LocatorParamsKey`` whose parameters are `Signature`: one namespace per parameter type.
    static func typed<Signature>(_ id: String, signature: Signature.Type) -> RegistrationKey {
        RegistrationKey(type: ObjectIdentifier(TypedParamsNamespace<Signature>.self), name: id, isTypedKey: true)
    }
}

/// Marker type whose identifier namespaces typed keys.
enum TypedKeyNamespace {}

/// Marker type whose identifiers name the parameterised factories of `Service` taking `Signature`.
enum ParamsSignature<Service, Signature> {}

/// Marker type whose identifiers namespace typed parameterised keys taking `Signature`.
enum TypedParamsNamespace<Signature> {}

/// The signature of a factory that takes two parameters (distinct from one parameter of tuple type).
enum ParamsPair<First, Second> {}
