import Foundation

extension RequestKitError {
    /// Returns this error with the operation and URL filled in where they are still missing.
    func adding(operation: String, url: URL?) -> RequestKitError {
        var copy = self
        if copy.operation == nil { copy.operation = operation }
        if copy.url == nil { copy.url = url }
        return copy
    }

    /// Wraps any error thrown while sending into a `RequestKitError`, keeping ones that already are.
    static func wrapping(_ error: any Error, operation: String, url: URL?) -> RequestKitError {
        if let error = error as? RequestKitError {
            return error.adding(operation: operation, url: url)
        }
        if error is CancellationError {
            return RequestKitError(
                .cancelled,
                subject: url?.absoluteString ?? operation,
                reason: "the request was cancelled",
                operation: operation,
                url: url,
                underlying: error
            )
        }
        return RequestKitError(
            .transportFailed,
            subject: url?.absoluteString ?? operation,
            reason: "the transport failed",
            operation: operation,
            url: url,
            underlying: error
        )
    }

    /// `error`, thrown by a step that changes a request before it is sent (a decorator, an authenticator), as
    /// ``RequestKitError/Code/refused`` with `reason`; a `RequestKitError` is kept as it is.
    static func refusing(_ request: ClientRequest, because error: any Error, reason: String) -> RequestKitError {
        if let error = error as? RequestKitError { return error }
        return RequestKitError(
            .refused,
            subject: request.url.absoluteString,
            reason: reason,
            operation: request.operation,
            url: request.url,
            underlying: error
        )
    }
}
