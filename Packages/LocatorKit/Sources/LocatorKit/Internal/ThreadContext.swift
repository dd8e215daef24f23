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
///
/// One pthread key points at a per-thread slot, so entering and leaving a factory costs one
/// `pthread_getspecific` and two stores instead of two `pthread_setspecific` calls.
enum ThreadContext {
    typealias Slot = UnsafeMutablePointer<UnsafeMutableRawPointer?>

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            #if canImport(Darwin)
            raw.deallocate()
            #else
            raw?.deallocate()
            #endif
        }
        return key
    }()

    /// This thread's slot, made on first use and freed when the thread exits.
    @inline(__always)
    private static func slot() -> Slot {
        if let raw = pthread_getspecific(key) {
            return raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        }
        let made = Slot.allocate(capacity: 1)
        made.initialize(to: nil)
        pthread_setspecific(key, made)
        return made
    }

    /// The node whose factory runs on this thread, if any. The slot holds it unretained: it is set only while
    /// that node is alive on this thread's stack (see ``with(_:_:)``).
    static var current: ResolutionNode? {
        guard let raw = slot().pointee else { return nil }
        return Unmanaged<ResolutionNode>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Makes `node` the thread's current node until ``leave(_:)`` is called with the returned token, which must
    /// happen on this thread before `node` is released.
    @inline(__always)
    static func enter(_ node: ResolutionNode) -> Token {
        let slot = slot()
        let token = Token(slot: slot, previous: slot.pointee)
        slot.pointee = Unmanaged.passUnretained(node).toOpaque()
        return token
    }

    /// Restores the node that was current before the matching ``enter(_:)``.
    @inline(__always)
    static func leave(_ token: Token) {
        token.slot.pointee = token.previous
    }

    struct Token {
        fileprivate let slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
        fileprivate let previous: UnsafeMutableRawPointer?
    }
}
