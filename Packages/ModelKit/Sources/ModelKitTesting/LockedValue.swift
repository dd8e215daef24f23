import Synchronization

/// A value behind a lock, for collecting what callbacks, observers and concurrent tasks saw.
public final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// A lock around `value`.
    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// The value now; setting it replaces it under the lock.
    public var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }

    /// Changes the value in place under the lock.
    public func update(_ change: (inout Value) -> Void) {
        mutex.withLock { change(&$0) }
    }
}
