/// A handle to a service that never keeps it alive, without an Objective-C runtime.
///
/// Register with ``Locator/register(weakHandleTo:as:name:)`` and resolve `WeakHandle<Service>.self`:
///
/// ```swift
/// try locator.register(weakHandleTo: session, as: (any Session).self)
/// let handle = try locator.resolve(WeakHandle<any Session>.self)
/// if handle.isAlive { try handle.get().refresh() }
/// ```
public struct WeakHandle<Target: Sendable>: Sendable {
    private let box: WeakBox

    init(_ object: AnyObject) {
        self.box = WeakBox(object)
    }

    /// Whether the target is still alive.
    public var isAlive: Bool { box.object != nil }

    /// The target, or `nil` once it was released.
    public var target: Target? { box.object as? Target }

    /// The target.
    ///
    /// - Throws: ``LocatorError/Code/released`` once the target was released.
    public func get() throws(LocatorError) -> Target {
        guard let target = box.object as? Target else {
            throw .with(
                .released,
                KeyDescription(serviceType: Target.self, name: nil, isTypedKey: false),
                note: "the weak handle's target was released"
            )
        }
        return target
    }
}
