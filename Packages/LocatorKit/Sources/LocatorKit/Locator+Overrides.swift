import Synchronization

extension Locator {
    /// The innermost override layer of the current task, for `LocatorKitTesting`.
    @_spi(Testing)
    public static var currentOverrideLayer: Locator? { OverrideScope.layer }

    /// Runs `operation` with `layer` consulted before every locator, in this task and its child tasks only.
    ///
    /// This is the seam `LocatorKitTesting.withOverrides` is built on; it is not API for production code.
    @_spi(Testing)
    public static func withOverrideLayer<Result>(
        _ layer: Locator,
        operation: () throws -> Result
    ) rethrows -> Result {
        OverrideScope.activeCount.add(1, ordering: .relaxed)
        defer { OverrideScope.activeCount.subtract(1, ordering: .relaxed) }
        return try OverrideScope.$layer.withValue(layer, operation: operation)
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
        return try await OverrideScope.$layer.withValue(layer, operation: operation, isolation: isolation)
    }
}
