@_spi(Testing) public import LocatorKit

/// Replacements for registrations, seen only by the task that installed them (and its child tasks).
///
/// Build them inside `withOverrides(_:operation:)` or the
/// `.locatorOverrides(_:)` trait. Overrides apply to every `Locator` resolved from in that scope,
/// including the dependencies that factories resolve, so a test can swap one leaf service under a real graph.
///
/// A singleton whose construction resolved a replaced key (directly or through other services) is built again
/// for the scope, kept by the scope and dropped with it; nothing built with a test double is ever stored in a
/// locator, so it cannot outlive the test, and a singleton made before the scope cannot hide a replacement. See
/// LocatorKit's Testing article.
public struct LocatorOverrides: Sendable {
    let layer: Locator

    init(parent: Locator?) {
        layer = Locator(parent: parent, name: "overrides")
    }

    /// Replaces `type` (and `name`) with an instance.
    public func override<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        with instance: Service
    ) {
        // The layer is private and never frozen, so registering cannot fail.
        _ = try? layer.register(instance, as: type, name: name)
    }

    /// Replaces `type` (and `name`) with a factory (`.transient` unless told).
    public func override<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        lifetime: Lifetime = .transient,
        factory: @escaping @Sendable (Resolver) throws -> Service
    ) {
        _ = try? layer.register(type, name: name, lifetime: lifetime, factory: factory)
    }

    /// Replaces a typed key with an instance.
    public func override<Service: Sendable>(_ key: LocatorKey<Service>, with instance: Service) {
        _ = try? layer.register(instance, for: key)
    }
}

/// Runs `operation` with overrides that only this task and its child tasks see.
///
/// ```swift
/// try await withOverrides { $0.override((any Clock).self, with: FixedClock()) } operation: {
///     let report = try locator.resolve(ReportService.self)  // built with FixedClock
/// }
/// ```
public func withOverrides<Result>(
    _ configure: (LocatorOverrides) throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
) async rethrows -> Result {
    let overrides = LocatorOverrides(parent: Locator.currentOverrideLayer)
    try configure(overrides)
    return try await Locator.withOverrideLayer(overrides.layer, isolation: isolation, operation: operation)
}

/// Runs synchronous `operation` with overrides that only this task (or thread) sees.
public func withOverrides<Result>(
    _ configure: (LocatorOverrides) throws -> Void,
    operation: () throws -> Result
) rethrows -> Result {
    let overrides = LocatorOverrides(parent: Locator.currentOverrideLayer)
    try configure(overrides)
    return try Locator.withOverrideLayer(overrides.layer, operation: operation)
}
