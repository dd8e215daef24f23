#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The synchronous factories running on the current thread, innermost first, as frames on the native stack.
///
/// A frame names the registration whose factory runs and its caller's node; the heap-allocated
/// ``ResolutionNode`` for it is made only when something needs it (a nested factory, a wait, a graph instance,
/// an error), so a factory whose dependencies already exist allocates nothing for cycle detection.
///
/// The frames also let a factory that ignores its ``Resolver`` and resolves through a captured ``Locator``
/// continue the same path, so cycles through captured locators are detected rather than deadlocking.
enum ThreadContext {
    struct Frame {
        // unowned(unsafe): the frame lives on the stack of `Registration.run` (or the parameterised variant), whose
        // callers hold both the entry and the parent node for longer than the frame.
        unowned(unsafe) let entry: Entry
        unowned(unsafe) let parent: ResolutionNode?
        var node: ResolutionNode?
        let previous: UnsafeMutableRawPointer?

        /// The node for this frame, made on first use.
        mutating func materialize() -> ResolutionNode {
            if let node { return node }
            let made = ResolutionNode(entry: entry, parent: parent)
            node = made
            return made
        }
    }

    private typealias Slot = UnsafeMutablePointer<UnsafeMutableRawPointer?>

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

    /// This thread's slot (the innermost frame), made on first use and freed when the thread exits.
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

    /// The node of the innermost factory running on this thread, if any.
    static var current: ResolutionNode? {
        guard let raw = slot().pointee else { return nil }
        return raw.assumingMemoryBound(to: Frame.self).pointee.materialize()
    }

    /// The node of `frame` when it is one of this thread's live frames; nil otherwise (a resolver used after its
    /// factory returned, or on another thread), in which case the resolve starts a new path. The address is
    /// compared, never dereferenced, until it is found among the live frames.
    static func node(forFrame frame: UnsafeMutableRawPointer) -> ResolutionNode? {
        var current = slot().pointee
        while let live = current {
            let typed = live.assumingMemoryBound(to: Frame.self)
            if live == frame { return typed.pointee.materialize() }
            current = typed.pointee.previous
        }
        return nil
    }

    /// Runs `body` in a new innermost frame for `entry`, called from `parent` (`node` when already made).
    @inline(__always)
    static func withFrame<Result>(
        entry: Entry,
        parent: ResolutionNode?,
        node: ResolutionNode?,
        _ body: (UnsafeMutableRawPointer) throws -> Result
    ) throws -> Result {
        let slot = slot()
        var frame = Frame(entry: entry, parent: parent, node: node, previous: slot.pointee)
        return try withUnsafeMutablePointer(to: &frame) { pointer in
            let raw = UnsafeMutableRawPointer(pointer)
            slot.pointee = raw
            defer { slot.pointee = pointer.pointee.previous }
            return try body(raw)
        }
    }
}
