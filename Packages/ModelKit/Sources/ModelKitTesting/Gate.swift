/// Holds whoever waits until it is opened; opened, it lets everyone through, at once and from then on.
///
/// ```swift
/// let gate = Gate()
/// async let held: Void = gate.wait()   // suspends
/// gate.open()                          // resumes it, and every later `wait()` returns at once
/// await held
/// ```
public final class Gate: Sendable {
    private let state = LockedValue<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// A closed gate.
    public init() {}

    /// Whether the gate has been opened.
    public var isOpen: Bool { state.value.isOpen }

    /// Suspends until the gate is opened; returns at once when it already is.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiting.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    /// Opens the gate: resumes every waiter, and lets every later one through.
    public func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
