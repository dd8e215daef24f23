public import Logging
import StoreKitLite

/// A `Logger` that records every entry in memory: hand ``logger`` to a backend, then read ``entries``.
///
/// `onEntry` runs synchronously on the logging thread for each entry, before the logging call returns, so a test
/// can wait for an event (a commit in progress) or hold the logging code at that point.
public final class LogRecorder: Sendable {
    /// One recorded log entry.
    public struct Entry: Sendable, Equatable {
        /// The entry's level.
        public var level: Logger.Level
        /// The message.
        public var message: String
        /// The metadata, rendered as strings.
        public var metadata: [String: String]

        /// Whether the message or any metadata key or value contains `text`.
        public func mentions(_ text: String) -> Bool {
            message.contains(text) || metadata.contains { $0.key.contains(text) || $0.value.contains(text) }
        }
    }

    private let storage = Locked<[Entry]>([])
    private let onEntry: (@Sendable (Entry) -> Void)?

    /// A recorder; `onEntry` sees each entry as it is logged.
    public init(onEntry: (@Sendable (Entry) -> Void)? = nil) {
        self.onEntry = onEntry
    }

    /// A logger at level `trace` that records into this recorder.
    public var logger: Logger {
        var logger = Logger(label: "storekitlite.logrecorder") { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Everything logged so far, in order.
    public var entries: [Entry] {
        storage.withLock { $0 }
    }

    fileprivate func record(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
        onEntry?(entry)
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var rendered: [String: String] = [:]
            for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
                rendered[key] = "\(value)"
            }
            recorder.record(Entry(level: event.level, message: "\(event.message)", metadata: rendered))
        }
    }
}
