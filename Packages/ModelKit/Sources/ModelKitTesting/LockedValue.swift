import Foundation

/// A value behind a lock, for collecting what callbacks, observers and concurrent tasks saw.
///
/// The lock is an `NSLock` (pthread), not `Mutex`: ThreadSanitizer on Linux does not see `Mutex`'s futex and would
/// report the suites that run under it (LocatorKit's, StoreKitLite's) as racy.
public final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is read and written only while `lock` is held, and `Value` is Sendable.
    private let lock = NSLock()
    private var stored: Value

    /// A lock around `value`.
    public init(_ value: Value) {
        stored = value
    }

    /// The value now; setting it replaces it under the lock.
    public var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }

    /// Changes the value in place under the lock.
    public func update(_ change: (inout Value) -> Void) {
        withLock(change)
    }

    /// Runs `body` with the value under the lock, and returns what it returns.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }
}
