import Synchronization

extension Locator {
    /// The innermost override layer of the current task, for `LocatorKitTesting`.
    @_spi(Testing)
    public static var currentOverrideLayer: Locator? { OverrideScope.current?.layer }

    /// Runs `operation` with `layer` consulted before every locator, in this task and its child tasks only.
    ///
    /// Shared instances built on a key of `layer` (or of an enclosing layer) are built again for the scope and
    /// kept by it, never by a locator; see the Testing article.
    ///
    /// This is the seam `LocatorKitTesting.withOverrides` is built on; it is not API for production code.
    @_spi(Testing)
    public static func withOverrideLayer<Result>(
        _ layer: Locator,
        operation: () throws -> Result
    ) rethrows -> Result {
        OverrideScope.activeCount.add(1, ordering: .relaxed)
        defer { OverrideScope.activeCount.subtract(1, ordering: .relaxed) }
        return try OverrideScope.$current.withValue(OverrideScopeState(layer: layer), operation: operation)
    }

    /// Runs `operation` with `layer` consulted before every locator, in this task and its child tasks only.
    @_spi(Testing)
    public static func withOverrideLayer<Result>(
        _ layer: Locator,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        OverrideScope.activeCount.add(1, ordering: .relaxed)
        defer { OverrideScope.activeCount.subtract(1, ordering: .relaxed) }
        return try await OverrideScope.$current.withValue(
            OverrideScopeState(layer: layer),
            operation: operation,
            isolation: isolation
        )
    }
}
