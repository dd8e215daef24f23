import Synchronization

/// A one-shot signal a test waits for.
final class Signal: Sendable {
    private let state = Mutex<(sent: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func send() {
        let waiters = state.withLock { state in
            state.sent = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let sent = state.withLock { state in
                if !state.sent { state.waiters.append(continuation) }
                return state.sent
            }
            if sent { continuation.resume() }
        }
    }
}

/// A value behind a lock, in a class so that a `Sendable` struct can share it.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
