import Foundation

/// A value guarded by a pthread mutex (`NSLock`), which ThreadSanitizer understands on Linux.
final class LockedState<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only inside `withLock`, while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
