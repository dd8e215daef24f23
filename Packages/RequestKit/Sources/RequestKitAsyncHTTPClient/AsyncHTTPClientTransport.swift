import AsyncHTTPClient
import Foundation
import HTTPTypes
public import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
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
        ///
        /// A redirect that leaves the request's origin (scheme, host and port) drops `Authorization`,
        /// `Proxy-Authorization`, `Cookie` and every header field marked sensitive (see
        /// ``RequestKit/RequestClient/Configuration/sensitiveHeaderNames``). `303`, and `301`/`302` after a `POST`,
        /// continue as a `GET` without the body; `307` and `308` replay the method and body.
        public var maximumRedirects = 5
        /// TLS settings (trust roots, minimum version); `nil` uses the system trust store.
        public var tls: TLSConfiguration?
        /// Certificate or public-key pins, per host.
        public var pinning = PinningPolicy()
        /// Connections kept per host.
        public var maximumConnectionsPerHost = 8
        /// Whether a refused connection is tried again, with a growing wait, until ``connectTimeout`` runs out
        /// (good for servers that restart). Set it to `false` to fail at once with
        /// ``RequestKit/RequestKitError/Code/connectionRefused`` when nothing listens, as a command-line client of a
        /// local daemon wants. Pinned transports never retry. A certificate that fails verification is never
        /// retried: it fails at once with ``RequestKit/RequestKitError/Code/tlsVerificationFailed``.
        public var retriesConnectionEstablishment = true

        /// Creates the default configuration.
        public init() {}
    }

    private let client: HTTPClient
    private let logger: Logger?
    private let requestTimeout: TimeAmount
    private let connectTimeout: TimeAmount
    private let pinning: PinningPolicy
    private let maximumRedirects: Int
    private let retriesConnectionEstablishment: Bool
    /// The traced attempts in flight per origin, to tell when the pool has no free connection for the next.
    private let occupancy: PoolOccupancy
    private let tls: TLSConfiguration?

    /// Creates a transport with its own `HTTPClient`. Call ``shutdown()`` when done.
    public init(configuration: Configuration = Configuration(), logger: Logger? = nil) {
        var settings = HTTPClient.Configuration()
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: TimeAmount(configuration.connectTimeout),
            read: configuration.readTimeout.map(TimeAmount.init)
        )
        // Redirects are followed here, not by AsyncHTTPClient, so that every header marked sensitive is dropped
        // when a redirect leaves the origin, and so that the attempt's deadline covers every hop.
        settings.redirectConfiguration = .disallow
        settings.tlsConfiguration = configuration.tls
        settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.maximumConnectionsPerHost
        // Responses are decoded by the client (`ResponseDecompression`), above any transport.
        settings.decompression = .disabled
        // AsyncHTTPClient would retry every failed connection until the connect timeout, a certificate that fails
        // verification included (ten seconds for a certain failure). Only refused connections are retried, here.
        settings.connectionPool.retryConnectionEstablishment = false
        // RequestKit records the request's and each attempt's spans and sends the trace context itself; a second
        // span from AsyncHTTPClient would only repeat the attempt's, ending at the response head.
        settings.tracing.tracer = nil
        if !configuration.pinning.isEmpty {
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
        self.connectTimeout = TimeAmount(configuration.connectTimeout)
        self.pinning = configuration.pinning
        self.maximumRedirects = configuration.maximumRedirects
        // A failed pin is final: retrying the connection would only hit the same certificate again.
        self.retriesConnectionEstablishment =
            configuration.retriesConnectionEstablishment && configuration.pinning.isEmpty
        self.tls = configuration.tls
        self.occupancy = PoolOccupancy(limit: configuration.maximumConnectionsPerHost)
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
        // Only a traced attempt is counted: the count is read only to tell its span that the pool made it wait.
        guard RequestTracing.isRecordingAttempt else { return try await deliver(request) }
        let origin = occupancy.enter(request.url)
        defer { occupancy.leave(origin) }
        return try await deliver(request)
    }

    /// Sends `request` and follows its redirects.
    private func deliver(_ request: ClientRequest) async throws -> ClientResponse {
        // Without pins (the common case) there is nothing to check, so the URL's scheme and host are not parsed.
        if !pinning.isEmpty, request.url.scheme?.lowercased() != "https", let host = request.url.host,
            !pinning.pins(for: host).isEmpty
        {
            throw RequestKitError(
                .pinningFailed,
                subject: request.url.absoluteString,
                reason: "a pinned host is reached only over https",
                operation: request.operation,
                url: request.url
            )
        }
        // A per-attempt timeout runs from here to the last byte of the body, across redirects; without one, the
        // transport's request timeout bounds the wait for the response head only.
        let headDeadline = NIODeadline.now() + (request.timeouts.perAttempt.map(TimeAmount.init) ?? requestTimeout)
        let bodyDeadline = request.timeouts.perAttempt.map { ContinuousClock.now + $0 }
        // The first hop is the request itself, not a copy: a copy counts references (the URL, the header fields)
        // that other requests on other cores count too.
        let response = try await execute(request, deadline: headDeadline)
        guard maximumRedirects > 0,
            let redirect = Redirect(status: Int(response.status.code), headers: response.headers, from: request)
        else {
            return wrap(response, of: request, requested: request, bodyDeadline: bodyDeadline)
        }
        return try await follow(
            redirect,
            of: response,
            from: request,
            headDeadline: headDeadline,
            bodyDeadline: bodyDeadline
        )
    }

    /// Follows `redirect`, the answer `response` to `request`, and those after it, up to the redirect limit.
    private func follow(
        _ redirect: Redirect,
        of response: HTTPClientResponse,
        from request: ClientRequest,
        headDeadline: NIODeadline,
        bodyDeadline: ContinuousClock.Instant?
    ) async throws -> ClientResponse {
        var hop = request
        var redirect = redirect
        var response = response
        // The URLs already requested.
        var visited: Set<String> = [request.url.absoluteString]
        while true {
            guard visited.count <= maximumRedirects else {
                throw RequestKitError(
                    .tooManyRedirects,
                    subject: request.url.absoluteString,
                    reason: "the redirect limit of \(maximumRedirects) was reached",
                    operation: request.operation,
                    url: request.url
                )
            }
            guard visited.insert(redirect.target.absoluteString).inserted else {
                throw RequestKitError(
                    .tooManyRedirects,
                    subject: request.url.absoluteString,
                    reason: "the redirects form a cycle at \(redirect.target.absoluteString)",
                    operation: request.operation,
                    url: request.url
                )
            }
            // The redirect's own body is dropped unread, which ends its transfer.
            let next = redirect.follow(hop)
            if request.redirectHandlers.isEmpty {
                hop = next
            } else {
                hop = Self.handing(response, from: hop.url, to: next, handlers: request.redirectHandlers)
            }
            response = try await execute(hop, deadline: headDeadline)
            guard let following = Redirect(status: Int(response.status.code), headers: response.headers, from: hop)
            else {
                return wrap(response, of: hop, requested: request, bodyDeadline: bodyDeadline)
            }
            redirect = following
        }
    }

    /// `next` as the request's redirect handlers change it, having seen `response`, a redirect from `url`.
    private static func handing(
        _ response: HTTPClientResponse,
        from url: URL,
        to next: ClientRequest,
        handlers: [any RedirectHandler]
    ) -> ClientRequest {
        let redirect = RedirectResponse(
            status: HTTPResponse.Status(code: Int(response.status.code)),
            headerFields: fields(of: response.headers),
            url: url
        )
        var next = next
        for handler in handlers {
            handler.willFollow(redirect, to: &next)
        }
        return next
    }

    /// NIO's header fields as `HTTPFields`, leaving out any whose name is not a valid field name.
    ///
    /// The list has room for one field more: a client with an HTTP cache adds `Cache-Status` to every answer, which
    /// would otherwise move the whole list to a larger allocation.
    private static func fields(of headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count + 1)
        for header in headers {
            if let name = HTTPField.Name(header.name) {
                fields.append(HTTPField(name: name, value: header.value))
            }
        }
        return fields
    }

    /// Sends one hop, retrying a refused connection until the connect timeout runs out when configured to.
    private func execute(_ request: ClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
        let outgoing = Self.makeRequest(request)
        // Refused connections are retried until the connect timeout, counted from the first refusal (a refusal
        // comes back within a millisecond on the same machine): the clock is not read for a request that connects.
        var connectDeadline: NIODeadline?
        var failures = 0
        while true {
            do {
                return try await client.execute(outgoing, deadline: deadline, logger: logger)
            } catch {
                if retriesConnectionEstablishment, Self.isConnectionRefused(error) {
                    // Nothing was sent, so any method may go again; the wait grows as AsyncHTTPClient's own does.
                    failures += 1
                    let retryUntil = connectDeadline ?? NIODeadline.now() + connectTimeout
                    connectDeadline = retryUntil
                    let backoff = TimeAmount.milliseconds(Int64(min(100 * pow(1.25, Double(failures - 1)), 1_000)))
                    let resume = NIODeadline.now() + backoff
                    if resume < retryUntil, resume < deadline {
                        do {
                            try await Task.sleep(for: .nanoseconds(backoff.nanoseconds))
                        } catch {
                            throw Self.map(error, url: request.url, operation: request.operation)
                        }
                        continue
                    }
                }
                if let failure = await TLSDiagnosis.failure(
                    from: error,
                    url: request.url,
                    tls: tls,
                    timeout: connectTimeout
                ) {
                    throw RequestKitError(
                        .tlsVerificationFailed,
                        subject: request.url.absoluteString,
                        reason: "the server's certificate failed verification (\(failure.code))",
                        operation: request.operation,
                        url: request.url,
                        underlying: failure
                    )
                }
                throw Self.map(error, url: request.url, operation: request.operation)
            }
        }
    }

    private static func makeRequest(_ request: ClientRequest) -> HTTPClientRequest {
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
        return outgoing
    }

    /// The response of the last hop as a ``ClientResponse``, its body bounded by the attempt's deadline.
    private func wrap(
        _ response: HTTPClientResponse,
        of hop: ClientRequest,
        requested request: ClientRequest,
        bodyDeadline: ContinuousClock.Instant?
    ) -> ClientResponse {
        let fields = Self.fields(of: response.headers)
        // The body closures capture only the body and what errors name, not the whole request and response.
        let body = response.body
        let requestURL = request.url
        let operation = request.operation
        let chunks = MappedBody(base: body, url: requestURL, operation: operation, deadline: bodyDeadline)
        return ClientResponse(
            status: HTTPResponse.Status(code: Int(response.status.code)),
            headerFields: fields,
            body: ClientResponse.Body(chunks) { limit in
                do {
                    guard let bodyDeadline else {
                        return Data(try await body.collect(upTo: limit).readableBytesView)
                    }
                    return try await MappedBody.racing(bodyDeadline, url: requestURL, operation: operation) {
                        Data(try await body.collect(upTo: limit).readableBytesView)
                    }
                } catch is NIOTooManyBytesError {
                    throw RequestKitError(
                        .bodyTooLarge,
                        subject: requestURL.absoluteString,
                        reason: "the body is larger than the limit of \(limit) bytes",
                        operation: operation,
                        url: requestURL
                    )
                } catch {
                    throw Self.map(error, url: requestURL, operation: operation)
                }
            },
            url: hop.url
        )
    }

    static func map(_ error: any Error, url: URL, operation: String) -> RequestKitError {
        if let error = error as? RequestKitError { return error }
        let subject = url.absoluteString
        func make(_ code: RequestKitError.Code, _ reason: String) -> RequestKitError {
            RequestKitError(
                code,
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
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            // RFC 9113 section 8.7: a refused stream was not processed. Any other reset before the response head
            // (CANCEL for the streams above a GOAWAY's last stream ID among them) counts as a lost connection.
            if closed.errorCode == .refusedStream {
                return .notProcessed(subject, operation: operation, url: url, underlying: error)
            }
            return .connectionLost(
                subject,
                reason: "the server reset the stream (\(closed.errorCode)) before the response arrived",
                operation: operation,
                url: url,
                underlying: error
            )
        }
        if isConnectionLost(error) {
            return .connectionLost(subject, operation: operation, url: url, underlying: error)
        }
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

    /// Whether `error` says the server closed or reset the connection before the response arrived.
    static func isConnectionLost(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .remoteConnectionClosed }
        if let error = error as? IOError { return [ECONNRESET, EPIPE, ECONNABORTED].contains(error.errnoCode) }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .eof, .outputClosed, .alreadyClosed: return true
            default: return false
            }
        }
        return false
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

/// Response body chunks as `Data`, with transport errors mapped to `RequestKitError`, and each chunk awaited no
/// later than the attempt's deadline when it has one.
private struct MappedBody: AsyncSequence, Sendable {
    typealias Element = Data
    let base: HTTPClientResponse.Body
    let url: URL
    let operation: String
    let deadline: ContinuousClock.Instant?

    struct AsyncIterator: AsyncIteratorProtocol {
        let base: IteratorBox
        let url: URL
        let operation: String
        let deadline: ContinuousClock.Instant?

        mutating func next() async throws -> Data? {
            do {
                guard let deadline else { return try await base.next() }
                let base = self.base
                return try await MappedBody.racing(deadline, url: url, operation: operation) {
                    try await base.next()
                }
            } catch {
                throw AsyncHTTPClientTransport.map(error, url: url, operation: operation)
            }
        }
    }

    /// The body's iterator in a box, so that a child task can wait for its next chunk.
    ///
    /// `@unchecked Sendable` is safe: the box is used by one `next()` at a time (an iterator is never iterated
    /// concurrently), and a child task that waits for it is awaited before `next()` returns.
    final class IteratorBox: @unchecked Sendable {
        private var base: HTTPClientResponse.Body.AsyncIterator

        init(_ base: HTTPClientResponse.Body.AsyncIterator) {
            self.base = base
        }

        func next() async throws -> Data? {
            guard let buffer = try await base.next() else { return nil }
            return Data(buffer.readableBytesView)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: IteratorBox(base.makeAsyncIterator()), url: url, operation: operation, deadline: deadline)
    }

    /// Runs `operation`, or fails with ``RequestKit/RequestKitError/Code/timedOut`` at `deadline`, cancelling it
    /// (which ends the transfer).
    static func racing<Value: Sendable>(
        _ deadline: ContinuousClock.Instant,
        url: URL,
        operation name: String,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                throw RequestKitError(
                    .timedOut,
                    subject: url.absoluteString,
                    reason: "the body did not arrive within the attempt's timeout",
                    operation: name,
                    url: url
                )
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let value = next { return value }
            }
            throw CancellationError()
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
