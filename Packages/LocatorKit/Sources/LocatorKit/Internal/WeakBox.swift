/// A weak reference to a service instance.
final class WeakBox: @unchecked Sendable {
    // @unchecked Sendable: the reference is immutable (`weak let`) and only ever points to an instance of a
    // `Sendable` service type, which LocatorKit checks when boxing.
    weak let object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}

/// Whether a value is a class instance, which weak lifetimes need.
func isClassInstance(_ value: Any) -> Bool {
    type(of: value) is AnyClass
}

/// Gives `nil` when `Params` is an optional type, so parameterised factories with optional parameters can be
/// resolved without parameters.
func nilParams<Params>(_ type: Params.Type) -> Params? {
    (type as? any OptionalParams.Type)?.nilValue as? Params
}

protocol OptionalParams {
    static var nilValue: Self { get }
}

extension Optional: OptionalParams {
    static var nilValue: Self { nil }
}
