import Dispatch
import Foundation
import ModelKitTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program a test runs as a child process (a server, a shell, a tool), started with `posix_spawn`.
///
/// Each standard stream of the child goes where the test says: nowhere, the test's own stream, a file, a buffer
/// collected until the child closes it, or a handler that receives each chunk as it is read. Pipes are read on
/// threads of their own, so a child that fills one stream while the test reads another never blocks.
///
/// ```swift
/// let result = try ChildProcess.run("/bin/sh", arguments: ["-c", "echo hello"], output: .collect)
/// #expect(result.termination == .exited(0))
/// #expect(result.outputText == "hello\n")
/// ```
///
/// The child starts with the default disposition of every signal and an empty signal mask, and on Linux with no
/// file descriptor of the test's open beyond its three standard streams.
public final class ChildProcess: Sendable {
    /// What the child reads on its standard input.
    public enum Input: Sendable {
        /// `/dev/null`.
        case null
        /// These bytes, then the end of the stream.
        case bytes([UInt8])
    }

    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case null
        /// The test process's own stream.
        case inherit
        /// The file at this path, created or truncated.
        case file(String)
        /// A buffer, handed over in ``Result`` once the child has exited and closed the stream.
        case collect
        /// A handler called with each chunk as it is read, on a thread of its own; it is not collected.
        case stream(@Sendable ([UInt8]) -> Void)
    }

    /// How the child ended.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal with this number ended it.
        case signaled(Int32)

        /// Whether it exited with status 0.
        public var succeeded: Bool { self == .exited(0) }

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let signal): "ended by signal \(signal)"
            }
        }
    }

    /// What a child left behind once it had exited.
    public struct Result: Sendable {
        /// How it ended.
        public var termination: Termination
        /// Its standard output, when it was ``Output/collect``ed.
        public var output: [UInt8]
        /// Its standard error, when it was ``Output/collect``ed.
        public var error: [UInt8]

        /// ``output`` decoded as UTF-8.
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        /// ``error`` decoded as UTF-8.
        public var errorText: String { String(decoding: error, as: UTF8.self) }
    }

    /// A child that could not be started.
    public struct StartError: Error, CustomStringConvertible {
        /// What failed: the call and the path it was about.
        public var operation: String
        /// The `errno` value it failed with.
        public var code: Int32

        public var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// The child's process identifier.
    public let processIdentifier: Int32

    private let state = Mutex(State())
    /// Wakes ``wait()`` once ``State/result`` is set.
    private let finishedCondition = NSCondition()

    private struct State {
        /// Set once the child has exited, before it is reaped: while it is unset, a signal reaches the child (or
        /// its zombie), never a process that has since taken its identifier.
        var exited = false
        /// Set once the child has been reaped and every pipe reader has finished.
        var result: Result?
        var waiters: [CheckedContinuation<Result, Never>] = []
    }

    /// Starts `executable` (a path; it is not looked up in `PATH`).
    ///
    /// - Parameters:
    ///   - arguments: the arguments after the program's own name.
    ///   - environment: the child's whole environment; `nil` passes on the test's.
    ///   - input: what the child reads on its standard input.
    ///   - output: where its standard output goes.
    ///   - error: where its standard error goes.
    /// - Throws: ``StartError`` when a pipe or file cannot be opened or the program cannot be started.
    public init(
        _ executable: String,
        arguments: [String] = [],
        environment: [String: String]? = nil,
        input: Input = .null,
        output: Output = .null,
        error: Output = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // The child's ends of the pipes are closed here once it has started (or failed to); the parent's ends are
        // closed here only if it failed, else by the threads that serve them.
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        var started = false
        defer { if !started { for descriptor in parentEnds { close(descriptor) } } }

        func makePipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard Self.makePipe(&ends) == 0 else { throw StartError(operation: "pipe", code: errno) }
            return (ends[0], ends[1])
        }

        var inputWriter: Int32?
        switch input {
        case .null:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .bytes:
            let ends = try makePipe()
            parentEnds.append(ends.write)
            childEnds.append(ends.read)
            inputWriter = ends.write
            posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
        }

        var readers: [(descriptor: Int32, isError: Bool, handler: (@Sendable ([UInt8]) -> Void)?)] = []
        for (target, destination) in [(Int32(1), output), (Int32(2), error)] {
            switch destination {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .inherit:
                break
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .collect, .stream:
                let ends = try makePipe()
                parentEnds.append(ends.read)
                childEnds.append(ends.write)
                var handler: (@Sendable ([UInt8]) -> Void)?
                if case .stream(let given) = destination { handler = given }
                readers.append((ends.read, target == 2, handler))
                posix_spawn_file_actions_adddup2(&actions, ends.write, target)
            }
        }
        // Nothing the test holds open (sockets, store files, other children's pipes) leaks into the child.
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }

        var everySignal = sigset_t()
        sigfillset(&everySignal)
        var noSignal = sigset_t()
        sigemptyset(&noSignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argumentStrings = [executable] + arguments
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = Self.withCStrings(argumentStrings) { argv in
            Self.withCStrings(environmentStrings) { envp in
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            }
        }
        guard status == 0 else { throw StartError(operation: "posix_spawn \(executable)", code: status) }
        started = true
        processIdentifier = pid

        // Each pipe is served on a thread of its own, and the child's exit is awaited on one more.
        let readersDone = DispatchGroup()
        let collected = LockedValue<(output: [UInt8], error: [UInt8])>(([], []))
        for reader in readers {
            readersDone.enter()
            Thread {
                Self.drain(reader.descriptor) { chunk in
                    if let handler = reader.handler {
                        handler(chunk)
                    } else if reader.isError {
                        collected.update { $0.error += chunk }
                    } else {
                        collected.update { $0.output += chunk }
                    }
                }
                readersDone.leave()
            }
            .start()
        }
        if let inputWriter, case .bytes(let bytes) = input {
            Thread {
                // A child that exits before reading all of its input must not end the test process with SIGPIPE:
                // blocked in this thread, the signal stays pending here (and goes with the thread) and `write`
                // fails with EPIPE instead.
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                Self.writeAll(bytes, to: inputWriter)
                close(inputWriter)
            }
            .start()
        }
        Thread { [self] in
            let termination = awaitExit()
            readersDone.wait()
            let streams = collected.value
            finish(Result(termination: termination, output: streams.output, error: streams.error))
        }
        .start()
    }

    /// Runs `executable` to its end and returns what it left; see ``init(_:arguments:environment:input:output:error:)``.
    public static func run(
        _ executable: String,
        arguments: [String] = [],
        environment: [String: String]? = nil,
        input: Input = .null,
        output: Output = .null,
        error: Output = .null
    ) throws -> Result {
        try ChildProcess(
            executable,
            arguments: arguments,
            environment: environment,
            input: input,
            output: output,
            error: error
        )
        .wait()
    }

    /// Sends `signal` to the child, unless it has already exited.
    public func send(signal: Int32) {
        state.withLock { state in
            if !state.exited { _ = kill(processIdentifier, signal) }
        }
    }

    /// Blocks the calling thread until the child has exited and its collected streams are complete.
    public func wait() -> Result {
        finishedCondition.lock()
        defer { finishedCondition.unlock() }
        while true {
            if let result = state.withLock({ $0.result }) { return result }
            finishedCondition.wait()
        }
    }

    /// Waits, without blocking a thread, until the child has exited and its collected streams are complete.
    public func finished() async -> Result {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result? in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for the child to exit, marks it exited, then reaps it.
    private func awaitExit() -> Termination {
        var information = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &information, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        state.withLock { $0.exited = true }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are C macros Swift does not import.
        return status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    }

    private func finish(_ result: Result) {
        finishedCondition.lock()
        let waiters = state.withLock { state in
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        finishedCondition.broadcast()
        finishedCondition.unlock()
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// `pipe2(ends, O_CLOEXEC)` where the C library has it (Glibc declares it only for `_GNU_SOURCE`, which Swift
    /// does not define), else `pipe` and then `FD_CLOEXEC` on each end.
    private static func makePipe(_ ends: UnsafeMutablePointer<Int32>) -> Int32 {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        if let symbol = dlsym(defaultSymbols, "pipe2") {
            return unsafeBitCast(symbol, to: Pipe2.self)(ends, O_CLOEXEC)
        }
        guard pipe(ends) == 0 else { return -1 }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return 0
    }

    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later), looked up because Swift does not see its
    /// declaration; `nil` where the C library lacks it.
    private static let closeFrom: CloseFrom? = dlsym(defaultSymbols, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// `RTLD_DEFAULT`: symbols of every loaded library.
    private static var defaultSymbols: UnsafeMutableRawPointer? {
        #if canImport(Darwin)
        UnsafeMutableRawPointer(bitPattern: -2)
        #else
        UnsafeMutableRawPointer(bitPattern: 0)
        #endif
    }

    private static func withCStrings<R>(
        _ strings: [String],
        _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// Reads `descriptor` to its end (or a read error), handing each chunk on, then closes it.
    private static func drain(_ descriptor: Int32, _ handle: ([UInt8]) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                handle(Array(buffer[..<count]))
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(descriptor)
    }

    /// Writes all of `bytes`, stopping early if the reader has gone.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
