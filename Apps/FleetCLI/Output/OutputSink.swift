public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes: standard output or standard error.
public enum OutputChannel: Sendable, Hashable {
    /// Results: tables, JSON, bodies.
    case standardOutput
    /// Messages, errors and progress.
    case standardError
}

/// Where commands write their output, so that tests can run them in-process and read what they printed.
public protocol OutputSink: Sendable {
    /// Writes bytes to a channel.
    func write(_ data: Data, to channel: OutputChannel)
}

extension OutputSink {
    /// Writes text (UTF-8) to a channel.
    public func write(_ text: String, to channel: OutputChannel = .standardOutput) {
        write(Data(text.utf8), to: channel)
    }

    /// Writes a line to a channel.
    public func line(_ text: String, to channel: OutputChannel = .standardOutput) {
        write(text + "\n", to: channel)
    }
}

/// The process's standard output and standard error.
public struct StandardOutput: OutputSink {
    /// The standard streams.
    public init() {}

    public func write(_ data: Data, to channel: OutputChannel) {
        let descriptor = channel == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
        data.withUnsafeBytes { buffer in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = Foundation.write(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // A closed pipe: nothing more can be written.
                }
                remaining -= written
                pointer += written
            }
        }
    }
}

/// An in-memory output: what a command run in-process printed, per channel.
public final class OutputBuffer: OutputSink {
    private let storage = Mutex<(output: Data, error: Data)>((Data(), Data()))

    /// An empty buffer.
    public init() {}

    public func write(_ data: Data, to channel: OutputChannel) {
        storage.withLock { storage in
            if channel == .standardOutput {
                storage.output.append(data)
            } else {
                storage.error.append(data)
            }
        }
    }

    /// Everything written to standard output, as UTF-8 text.
    public var standardOutput: String { String(decoding: storage.withLock { $0.output }, as: UTF8.self) }
    /// Everything written to standard error, as UTF-8 text.
    public var standardError: String { String(decoding: storage.withLock { $0.error }, as: UTF8.self) }
    /// The bytes written to standard output.
    public var standardOutputData: Data { storage.withLock { $0.output } }
}
