import Foundation
import HTTPTypes

extension RequestDecorator {
    /// A decorator that sends HTTP Basic credentials (RFC 7617, UTF-8) in `Authorization`.
    ///
    /// A user name containing `:` cannot be sent this way; requests then fail with
    /// ``RequestKitError/Code/invalidRequest`` and nothing is sent.
    ///
    /// ```swift
    /// configuration.middleware.append(RequestDecorator.basicAuthorization(username: "fleet", password: secret))
    /// ```
    public static func basicAuthorization(username: String, password: String) -> RequestDecorator {
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        let valid = !username.contains(":")
        return RequestDecorator { request in
            guard valid else {
                throw RequestKitError(
                    .invalidRequest,
                    subject: request.url.absoluteString,
                    reason: "a Basic user name cannot contain a colon",
                    operation: request.operation,
                    url: request.url
                )
            }
            request.headerFields[.authorization] = "Basic " + credentials
        }
    }

    /// A decorator that sends a fixed bearer token (RFC 6750) in `Authorization`.
    public static func bearerToken(_ token: String) -> RequestDecorator {
        RequestDecorator { request in
            request.headerFields[.authorization] = "Bearer " + token
        }
    }

    /// A decorator that asks `token` for the current bearer token before every request (and every attempt), so a
    /// refreshed token is used as soon as it exists. An error thrown by `token` refuses the request
    /// (``RequestKitError/Code/refused``) and nothing is sent.
    public static func bearerToken(_ token: @escaping @Sendable () async throws -> String) -> RequestDecorator {
        RequestDecorator { request in
            request.headerFields[.authorization] = "Bearer " + (try await token())
        }
    }
}
