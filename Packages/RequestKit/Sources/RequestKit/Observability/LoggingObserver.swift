import Foundation
import HTTPTypes
public import Logging

/// Logs every request's start and finish to the logger it is handed, with secrets redacted.
///
/// Starts are logged at `debug`, successful finishes at `info` and failures at `warning`, each with the
/// operation, method, URL, status, duration and byte counts as metadata. With a ``RetryPolicy``, every attempt that
/// is retried is logged at `notice` with its number (`request.attempt`) and the wait before the next one. A request
/// the server did not process and that went out again is logged at `info` (`request.replay`).
public struct LoggingObserver: RequestObserver {
    private let logger: Logger

    /// Creates an observer that logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func requestStarted(_ event: RequestStarted) {
        logger.debug(
            "request started",
            metadata: [
                "request.id": "\(event.id)",
                "request.operation": "\(event.operation)",
                "request.method": "\(event.method.rawValue)",
                "request.url": "\(event.url.absoluteString)",
                "request.headers": "\(event.redactedHeaderFields.map { "\($0.name): \($0.value)" })",
            ]
        )
    }

    public func requestAttemptFinished(_ event: RequestAttemptFinished) {
        guard let delay = event.retryDelay else { return }
        var metadata: Logger.Metadata = [
            "request.id": "\(event.id)",
            "request.operation": "\(event.operation)",
            "request.method": "\(event.method.rawValue)",
            "request.url": "\(event.url.absoluteString)",
            "request.attempt": "\(event.attempt)",
            "request.duration": "\(event.duration)",
            "retry.delay": "\(delay)",
        ]
        if let status = event.status { metadata["response.status"] = "\(status)" }
        if let error = event.error { metadata["error"] = "\(error)" }
        logger.notice("request attempt failed, retrying", metadata: metadata)
    }

    public func requestReplayed(_ event: RequestReplayed) {
        logger.info(
            "request not processed by the server, sent again",
            metadata: [
                "request.id": "\(event.id)",
                "request.operation": "\(event.operation)",
                "request.method": "\(event.method.rawValue)",
                "request.url": "\(event.url.absoluteString)",
                "request.attempt": "\(event.attempt)",
                "request.replay": "\(event.replay)",
                "error": "\(event.error)",
            ]
        )
    }

    public func requestFinished(_ event: RequestFinished) {
        var metadata: Logger.Metadata = [
            "request.id": "\(event.id)",
            "request.operation": "\(event.operation)",
            "request.method": "\(event.method.rawValue)",
            "request.url": "\(event.url.absoluteString)",
            "request.duration": "\(event.duration)",
            "response.bytes": "\(event.bytesReceived)",
        ]
        if let status = event.status { metadata["response.status"] = "\(status)" }
        if let error = event.error {
            metadata["error"] = "\(error)"
            logger.warning("request failed", metadata: metadata)
        } else {
            logger.info("request finished", metadata: metadata)
        }
    }
}
