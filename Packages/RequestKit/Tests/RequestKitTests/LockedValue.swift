import Synchronization

/// A value behind a lock, for collecting what callbacks and observers saw.
final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }

    func update(_ change: (inout Value) -> Void) {
        mutex.withLock { change(&$0) }
    }
}
