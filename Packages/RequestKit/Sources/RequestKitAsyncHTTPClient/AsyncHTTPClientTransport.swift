import AsyncHTTPClient
import Foundation
import HTTPTypes
public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
public import NIOSSL
public import RequestKit

/// The RequestKit transport over AsyncHTTPClient.
///
/// It owns its `HTTPClient` and must be shut down with ``shutdown()`` (or used through
/// ``withTransport(configuration:logger:_:)``, which does it). Pins of a ``PinningPolicy`` are checked on every new
/// TLS connection right after the handshake, before any request is written to it.
public final class AsyncHTTPClientTransport: Transport {
    /// How the transport connects.
    public struct Configuration: Sendable {
        /// The longest time to establish a connection.
        public var connectTimeout: Duration = .seconds(10)
        /// The longest time without receiving a byte, once connected; a stalled body fails after it.
        public var readTimeout: Duration? = .seconds(60)
        /// The per-attempt deadline (until the response head) when a request sets none.
        public var requestTimeout: Duration = .seconds(60)
        /// The most redirects followed; `0` follows none and returns the redirect response.
        /// Cross-origin redirects drop `Authorization`, `Proxy-Authorization` and `Cookie`.
        public var maximumRedirects = 5
        /// TLS settings (trust roots, minimum version); `nil` uses the system trust store.
        public var tls: TLSConfiguration?
        /// Certificate or public-key pins, per host.
        public var pinning = PinningPolicy()
        /// Connections kept per host.
        public var maximumConnectionsPerHost = 8
        /// Whether a failed connection attempt is retried until ``connectTimeout`` runs out (AsyncHTTPClient's
        /// default, good for servers that restart). Set it to `false` to fail at once with
        /// ``RequestKit/RequestKitError/Code/connectionRefused`` when nothing listens, as a command-line client of a
        /// local daemon wants. Pinned transports never retry.
        public var retriesConnectionEstablishment = true

        /// Creates the default configuration.
        public init() {}
    }

    private let client: HTTPClient
    private let logger: Logger?
    private let requestTimeout: TimeAmount
    private let pinning: PinningPolicy

    /// Creates a transport with its own `HTTPClient`. Call ``shutdown()`` when done.
    public init(configuration: Configuration = Configuration(), logger: Logger? = nil) {
        var settings = HTTPClient.Configuration()
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: TimeAmount(configuration.connectTimeout),
            read: configuration.readTimeout.map(TimeAmount.init)
        )
        settings.redirectConfiguration =
            configuration.maximumRedirects > 0
            ? .follow(max: configuration.maximumRedirects, allowCycles: false) : .disallow
        settings.tlsConfiguration = configuration.tls
        settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.maximumConnectionsPerHost
        settings.decompression = .disabled
        settings.connectionPool.retryConnectionEstablishment = configuration.retriesConnectionEstablishment
        if !configuration.pinning.isEmpty {
            // A failed pin is final: retrying the connection would only hit the same certificate again.
            settings.connectionPool.retryConnectionEstablishment = false
            let verifier = PinVerifier(policy: configuration.pinning)
            settings.http1_1ConnectionDebugInitializer = { channel in verifier.verify(channel) }
            settings.http2ConnectionDebugInitializer = { channel in verifier.verify(channel) }
        }
        if let logger {
            client = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: settings,
                backgroundActivityLogger: logger
            )
        } else {
            client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: settings)
        }
        self.logger = logger
        self.requestTimeout = TimeAmount(configuration.requestTimeout)
        self.pinning = configuration.pinning
    }

    /// Creates a transport, runs `body` with it, and shuts it down.
    public static func withTransport<Result>(
        configuration: Configuration = Configuration(),
        logger: Logger? = nil,
        _ body: (AsyncHTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        let transport = AsyncHTTPClientTransport(configuration: configuration, logger: logger)
        do {
            let result = try await body(transport)
            try await transport.shutdown()
            return result
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    /// Closes every connection. Requests sent after it fail with ``RequestKitError/Code/shutDown``.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    public func send(_ request: ClientRequest) async throws -> ClientResponse {
        // Without pins (the common case) there is nothing to check, so the URL's scheme and host are not parsed.
        if !pinning.isEmpty, request.url.scheme?.lowercased() != "https", let host = request.url.host,
            !pinning.pins(for: host).isEmpty
        {
            throw RequestKitError(
                code: .pinningFailed,
                subject: request.url.absoluteString,
                reason: "a pinned host is reached only over https",
                operation: request.operation,
                url: request.url
            )
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        if !request.headerFields.isEmpty {
            var headers = HTTPHeaders()
            headers.reserveCapacity(request.headerFields.count)
            for field in request.headerFields {
                headers.add(name: field.name.rawName, value: field.value)
            }
            outgoing.headers = headers
        }
        if let body = request.body {
            if let data = body.data {
                outgoing.body = .bytes(ByteBuffer(bytes: data))
            } else {
                let chunks = body.chunks().map { ByteBuffer(bytes: $0) }
                outgoing.body = .stream(chunks, length: body.length.map { .known($0) } ?? .unknown)
            }
        }
        let timeout = request.timeouts.perAttempt.map(TimeAmount.init) ?? requestTimeout
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: timeout, logger: logger)
        } catch {
            throw Self.map(error, url: request.url, operation: request.operation)
        }
        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count)
        for header in response.headers {
            if let name = HTTPField.Name(header.name) {
                fields.append(HTTPField(name: name, value: header.value))
            }
        }
        // The history holds one entry per hop; only a redirect makes the final URL differ from the request's.
        let url =
            response.history.count > 1
            ? response.history.last.flatMap { URL(string: $0.request.url) } ?? request.url : request.url
        // The body closures capture only the body and what errors name, not the whole request and response.
        let body = response.body
        let requestURL = request.url
        let operation = request.operation
        return ClientResponse(
            status: HTTPResponse.Status(code: Int(response.status.code)),
            headerFields: fields,
            body: ResponseBody(MappedBody(base: body, url: requestURL, operation: operation)) { limit in
                do {
                    return Data(try await body.collect(upTo: limit).readableBytesView)
                } catch is NIOTooManyBytesError {
                    throw RequestKitError(
                        code: .bodyTooLarge,
                        subject: requestURL.absoluteString,
                        reason: "the body is larger than the limit of \(limit) bytes",
                        operation: operation,
                        url: requestURL
                    )
                } catch {
                    throw Self.map(error, url: requestURL, operation: operation)
                }
            },
            url: url
        )
    }

    static func map(_ error: any Error, url: URL, operation: String) -> RequestKitError {
        if let error = error as? RequestKitError { return error }
        let subject = url.absoluteString
        func make(_ code: RequestKitError.Code, _ reason: String) -> RequestKitError {
            RequestKitError(
                code: code,
                subject: subject,
                reason: reason,
                operation: operation,
                url: url,
                underlying: error
            )
        }
        if error is CancellationError { return make(.cancelled, "the request was cancelled") }
        if let pinning = error as? PinningFailure { return make(.pinningFailed, pinning.reason) }
        if isConnectionRefused(error) { return make(.connectionRefused, "nothing accepts connections at the address") }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return make(.cancelled, "the request was cancelled")
            case .deadlineExceeded: return make(.timedOut, "no response before the deadline")
            case .readTimeout: return make(.timedOut, "the server stopped sending")
            case .connectTimeout: return make(.timedOut, "the connection was not established in time")
            case .redirectLimitReached: return make(.tooManyRedirects, "the redirect limit was reached")
            case .redirectCycleDetected: return make(.tooManyRedirects, "the redirects form a cycle")
            case .alreadyShutdown: return make(.shutDown, "the transport was shut down")
            default: return make(.transportFailed, "the transport failed")
            }
        }
        return make(.transportFailed, "the transport failed")
    }

    /// Whether `error` is a refused TCP connection: NIO's `IOError` with `ECONNREFUSED`, alone or among the
    /// attempts of a happy-eyeballs `NIOConnectionError` (every attempt refused).
    static func isConnectionRefused(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            let attempts = error.connectionErrors.map(\.error)
            return !attempts.isEmpty && attempts.allSatisfy(isConnectionRefused)
        }
        return false
    }
}

/// Response body chunks as `Data`, with transport errors mapped to `RequestKitError`.
private struct MappedBody: AsyncSequence, Sendable {
    typealias Element = Data
    let base: HTTPClientResponse.Body
    let url: URL
    let operation: String

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let url: URL
        let operation: String

        mutating func next() async throws -> Data? {
            do {
                guard let buffer = try await base.next() else { return nil }
                return Data(buffer.readableBytesView)
            } catch {
                throw AsyncHTTPClientTransport.map(error, url: url, operation: operation)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), url: url, operation: operation)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
