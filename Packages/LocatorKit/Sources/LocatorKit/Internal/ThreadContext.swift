#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The resolution node whose synchronous factory is running on the current thread.
///
/// A factory that ignores the ``Resolver`` it is given and resolves through a captured ``Locator`` still continues
/// the same resolution chain, so cycles through captured locators are detected rather than deadlocking.
enum ThreadContext {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The node whose factory runs on this thread, if any. The pointer is unretained: it is only set while the
    /// node is alive on this thread's stack (see ``with(_:_:)``).
    static var current: ResolutionNode? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<ResolutionNode>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Runs `body` with `node` as the thread's current node, restoring the previous one afterwards.
    static func with<Result, Failure: Error>(
        _ node: ResolutionNode,
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(node).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
