import CLocatorKitThread
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The synchronous factories running on the current thread, innermost last, in a per-thread frame stack.
///
/// A frame names the registration whose factory runs and its caller's node; the heap-allocated
/// ``ResolutionNode`` for it is made only when something needs it (a nested factory, a wait, a graph instance,
/// an error), so a factory whose dependencies already exist allocates nothing for cycle detection.
///
/// The frames also let a factory that ignores its ``Resolver`` and resolves through a captured ``Locator``
/// continue the same path, so cycles through captured locators are detected rather than deadlocking.
///
/// The stack lives in memory that only its own thread touches, found through a C11 thread-local slot (one load
/// per factory run; a pthread key only frees it at thread exit), so pushing and popping a frame is a few plain
/// stores, with no closure and no shared write.
enum ThreadContext {
    struct Frame {
        // unowned(unsafe): a frame is pushed by `Registration.run` (or the parameterised variant) and popped before
        // that function returns; its caller holds both the entry and the parent node for longer than the frame.
        unowned(unsafe) let entry: Entry
        unowned(unsafe) let parent: ResolutionNode?
        // unowned(unsafe): the recorder is held by the frame's node or by its parent node, which outlive the frame
        // (see above).
        /// Where the keys this factory resolves are recorded, when it runs for a shared instance's construction.
        unowned(unsafe) let recorder: DependencyRecorder?
        /// The frame's node once made: one strong reference, given back by ``ThreadContext/pop(_:)``. Unmanaged so
        /// that popping a frame that never made one is a nil check, not a call to the frame's destroy witness.
        var node: Unmanaged<ResolutionNode>?
        /// Names the frame for a ``Resolver``: unique per push, so a resolver that outlived its factory never
        /// matches a later frame.
        let serial: UInt64
    }

    /// One thread's frames, innermost last.
    struct Stack {
        var frames: UnsafeMutablePointer<Frame>
        var capacity: Int
        var depth: Int
        /// The next frame's serial: the thread's number in the high 32 bits, a push counter in the low ones.
        var nextSerial: UInt64
        /// Post-construction hooks waiting for the outermost factory on this thread to finish.
        var hooks: [PendingHook] = []
        /// `hooks.count`, as a plain integer the factory path can test without touching the array.
        var pendingHooks = 0
    }

    /// A post-construction hook of an instance that was made, run once the outermost resolve that made it is done.
    struct PendingHook {
        let entry: Entry
        let run: () throws -> Void
    }

    typealias StackPointer = UnsafeMutablePointer<Stack>

    /// Numbers the threads that run factories, so serials never repeat across threads.
    private static let threadCount = Atomic<UInt64>(0)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            #if canImport(Darwin)
            let stack = raw.assumingMemoryBound(to: Stack.self)
            #else
            guard let stack = raw?.assumingMemoryBound(to: Stack.self) else { return }
            #endif
            // A thread exits with no factory running, so every frame was popped already. Clearing the native slot
            // makes a resolve from a later thread-exit destructor start a new stack instead of using this one.
            locatorkit_thread_stack_slot().pointee = nil
            stack.pointee.frames.deallocate()
            stack.deinitialize(count: 1)
            stack.deallocate()
        }
        return key
    }()

    /// This thread's frame stack, made on first use and freed when the thread exits.
    @inline(__always)
    static func stack() -> StackPointer {
        if let raw = locatorkit_thread_stack_slot().pointee {
            return raw.assumingMemoryBound(to: Stack.self)
        }
        return makeStack()
    }

    @inline(never)
    private static func makeStack() -> StackPointer {
        let capacity = 16
        let number = threadCount.add(1, ordering: .relaxed).newValue
        let made = StackPointer.allocate(capacity: 1)
        made.initialize(
            to: Stack(frames: .allocate(capacity: capacity), capacity: capacity, depth: 0, nextSerial: number << 32)
        )
        // The native slot is the fast way back to the stack; the pthread key only frees it at thread exit.
        locatorkit_thread_stack_slot().pointee = UnsafeMutableRawPointer(made)
        pthread_setspecific(key, made)
        return made
    }

    /// Pushes a frame for `entry`, called from `parent` (`node` when already made); returns the frame's serial.
    /// Every push must be paired with a ``pop(_:)`` on the same thread before the pusher returns.
    @inline(__always)
    static func push(
        entry: Entry,
        parent: ResolutionNode?,
        node: ResolutionNode?,
        recorder: DependencyRecorder?,
        on stack: StackPointer
    ) -> UInt64 {
        if stack.pointee.depth == stack.pointee.capacity {
            grow(stack)
        }
        let serial = stack.pointee.nextSerial
        stack.pointee.nextSerial = serial &+ 1
        (stack.pointee.frames + stack.pointee.depth).initialize(
            to: Frame(
                entry: entry,
                parent: parent,
                recorder: recorder,
                node: node.map(Unmanaged.passRetained),
                serial: serial
            )
        )
        stack.pointee.depth += 1
        return serial
    }

    /// Pops the innermost frame.
    @inline(__always)
    static func pop(_ stack: StackPointer) {
        stack.pointee.depth -= 1
        stack.pointee.frames[stack.pointee.depth].node?.release()
    }

    @inline(never)
    private static func grow(_ stack: StackPointer) {
        let capacity = stack.pointee.capacity * 2
        let frames = UnsafeMutablePointer<Frame>.allocate(capacity: capacity)
        frames.moveInitialize(from: stack.pointee.frames, count: stack.pointee.depth)
        stack.pointee.frames.deallocate()
        stack.pointee.frames = frames
        stack.pointee.capacity = capacity
    }

    /// The node of frame `index` of `stack`, made on first use.
    private static func materialize(_ index: Int, in stack: StackPointer) -> ResolutionNode {
        let frame = stack.pointee.frames + index
        if let node = frame.pointee.node { return node.takeUnretainedValue() }
        let made = ResolutionNode(
            entry: frame.pointee.entry,
            parent: frame.pointee.parent,
            recorder: frame.pointee.recorder
        )
        frame.pointee.node = Unmanaged.passRetained(made)
        return made
    }

    /// The node of the innermost factory running on the thread of `stack`, if any.
    @inline(__always)
    static func current(in stack: StackPointer) -> ResolutionNode? {
        let depth = stack.pointee.depth
        return depth == 0 ? nil : materialize(depth - 1, in: stack)
    }

    /// The node of the innermost factory running on this thread, if any.
    static var current: ResolutionNode? { current(in: stack()) }

    /// The node of the frame named `serial` when it is one of this thread's live frames; nil otherwise (a resolver
    /// used after its factory returned, or on another thread), in which case the resolve starts a new path.
    static func node(forFrame serial: UInt64) -> ResolutionNode? {
        let stack = stack()
        var index = stack.pointee.depth - 1
        while index >= 0 {
            if stack.pointee.frames[index].serial == serial { return materialize(index, in: stack) }
            index -= 1
        }
        return nil
    }

    // MARK: - Post-construction hooks

    /// Queues a hook to run when the outermost factory on this thread has finished.
    static func enqueue(_ hook: PendingHook, on stack: StackPointer) {
        stack.pointee.hooks.append(hook)
        stack.pointee.pendingHooks += 1
    }

    /// Runs the queued hooks when no factory is running on this thread any more (the resolve that made their
    /// instances is done, so a hook can resolve a service that depends on its own instance). Every hook runs; the
    /// first failure is thrown.
    @inline(__always)
    static func runHooksIfOutermost(_ stack: StackPointer) throws(LocatorError) {
        guard stack.pointee.depth == 0, stack.pointee.pendingHooks != 0 else { return }
        try runHooks(stack)
    }

    /// After a failed resolve: runs the hooks of the instances that were made anyway (they stay made), ignoring
    /// their failures, so no hook is left queued for an unrelated resolve.
    @inline(__always)
    static func runHooksAfterFailure(_ stack: StackPointer) {
        guard stack.pointee.depth == 0, stack.pointee.pendingHooks != 0 else { return }
        do {
            try runHooks(stack)
        } catch {
            // The resolve already failed with its own error, which is the one to report.
        }
    }

    @inline(never)
    private static func runHooks(_ stack: StackPointer) throws(LocatorError) {
        var firstError: LocatorError?
        while !stack.pointee.hooks.isEmpty {
            let hooks = stack.pointee.hooks
            stack.pointee.hooks = []
            stack.pointee.pendingHooks = 0
            for hook in hooks {
                do {
                    try hook.run()
                } catch {
                    guard firstError == nil else { continue }
                    if let error = error as? LocatorError, error.carriesPath {
                        firstError = error
                    } else {
                        firstError = .hookFailed(hook.entry, underlying: error)
                    }
                }
            }
        }
        if let firstError { throw firstError }
    }
}
