public import Testing

/// A Swift Testing trait that runs a test (or every test of a suite) inside `withOverrides(_:operation:)`.
///
/// ```swift
/// @Test(.locatorOverrides { $0.override((any Clock).self, with: FixedClock()) })
/// func reportUsesTheFixedClock() throws { … }
/// ```
///
/// Overrides are task-local, so tests running in parallel never see each other's overrides.
public struct LocatorOverridesTrait: TestTrait, SuiteTrait, TestScoping {
    let configure: @Sendable (LocatorOverrides) -> Void

    /// Applies to every test in a suite, each in its own scope.
    public var isRecursive: Bool { true }

    /// Runs `function` inside the overrides.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withOverrides(configure, operation: function)
    }
}

extension Trait where Self == LocatorOverridesTrait {
    /// Runs the test with the overrides `configure` sets up.
    public static func locatorOverrides(_ configure: @escaping @Sendable (LocatorOverrides) -> Void) -> Self {
        LocatorOverridesTrait(configure: configure)
    }
}
