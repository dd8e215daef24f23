import Foundation
public import Logging
import ModelKit
import Synchronization

#if canImport(Glibc)
import Glibc

private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin

private let systemWrite = Darwin.write
#endif

/// Writes log entries to standard error, one per line: a JSON object (`{"level":"info","message":…,"ts":…}` with the
/// metadata as members) or a readable line. Lines from concurrent tasks never interleave.
public struct StructuredLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    /// Adds metadata of the task that logs, such as the current span's `trace_id` and `span_id`.
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level
    private let label: String
    private let format: FleetConfiguration.LogFormat
    private let sink: LogSink

    /// A handler for `label`, writing `format` lines to `sink` (standard error unless told).
    public init(
        label: String,
        level: Logger.Level,
        format: FleetConfiguration.LogFormat,
        sink: LogSink = .standardError,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.metadataProvider = metadataProvider
        self.label = label
        self.logLevel = level
        self.format = format
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { own, _ in own }
        }
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        let timestamp = Date().ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let line: String
        switch format {
        case .json:
            var object = JSONObject()
            object["ts"] = .string(timestamp)
            object["level"] = .string(event.level.rawValue)
            object["label"] = .string(label)
            object["message"] = .string(event.message.description)
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                object[key] = Self.json(value)
            }
            line = JSONValue.object(object).formatted()
        case .text:
            let fields = merged.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            line =
                "\(timestamp) \(event.level.rawValue.uppercased()) \(label): \(event.message)"
                + (fields.isEmpty ? "" : " " + fields)
        }
        sink.write(line + "\n")
    }

    private static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let values):
            .object(JSONObject(values.sorted(by: { $0.key < $1.key }).map { (key: $0.key, value: json($0.value)) }))
        }
    }
}

/// Where log lines go: standard error, or a buffer that tests read.
public final class LogSink: Sendable {
    private let lines = Mutex<[String]>([])
    private let toStandardError: Bool

    private init(toStandardError: Bool) {
        self.toStandardError = toStandardError
    }

    /// Standard error.
    public static let standardError = LogSink(toStandardError: true)

    /// A sink that keeps lines in memory.
    public static func memory() -> LogSink { LogSink(toStandardError: false) }

    /// The lines written so far (memory sinks only).
    public var written: [String] { lines.withLock { $0 } }

    func write(_ line: String) {
        if toStandardError {
            // write(2), not FileHandle.write, which traps when the stream is gone (a reader such as `head` that
            // has exited): a log line that cannot be written is dropped, never a reason to stop the daemon.
            lines.withLock { _ in
                var line = line
                line.withUTF8 { bytes in
                    guard let base = bytes.baseAddress else { return }
                    var offset = 0
                    while offset < bytes.count {
                        let written = systemWrite(STDERR_FILENO, base + offset, bytes.count - offset)
                        if written > 0 {
                            offset += written
                        } else if written < 0 && errno == EINTR {
                            continue
                        } else {
                            break
                        }
                    }
                }
            }
        } else {
            lines.withLock { $0.append(line) }
        }
    }
}
