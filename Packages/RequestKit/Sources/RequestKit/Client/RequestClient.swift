public import Foundation
public import HTTPTypes
import ModelKit
import Synchronization
public import Tracing

/// The data request service: sends requests to the current environment through the middleware chain and a
/// transport, validates and decodes the responses.
///
/// One client is typically shared by the whole application. It is a value holding only immutable configuration,
/// so it can be used from any task or thread.
///
/// ```swift
/// let client = RequestClient(environment: environments, transport: transport)
/// let vehicles = try await client.get("vehicles", parameters: ["make": "volvo"], as: [Vehicle].self)
/// ```
public struct RequestClient: Sendable {
    /// Settings shared by every request of a client.
    public struct Configuration: Sendable {
        /// Middleware in order; the first is the outermost.
        public var middleware: [any Middleware] = []
        /// The HTTP cache, or `nil` (the default) to cache nothing. It sits outside retries, authentication and
        /// ``middleware``; each request's ``CachePolicy`` decides how it uses it. See <doc:Caching>.
        public var cache: HTTPCache?
        /// Observers told about every request.
        public var observers: [any RequestObserver] = []
        /// Decoders by media type for ``ResponseContent``.
        public var decoders: DecoderRegistry = .standard
        /// Header fields added to every request (a request's own fields win).
        public var headerFields: HTTPFields = [:]
        /// Timeouts of requests that set none of their own.
        public var timeouts = Timeouts()
        /// The largest response body decoded in memory; larger bodies fail with
        /// ``RequestKitError/Code/bodyTooLarge`` (downloads are not limited).
        public var maximumBodySize = 64 * 1024 * 1024
        /// Reports whether the environment's host is reachable; while it is not, requests fail at once with
        /// ``RequestKitError/Code/offline``. `nil` (the default) sends regardless.
        public var reachability: (any ReachabilityMonitor)?
        /// What happens to requests in flight when the environment switches.
        public var inFlightPolicy = InFlightPolicy.finish
        /// Makes the JSON decoder for models, or `nil` (the default) for ModelKit's `ModelCoding` settings
        /// (ISO 8601 dates with fractional seconds), whose errors name the field path and the value found.
        public var makeJSONDecoder: (@Sendable () -> JSONDecoder)?
        /// Makes the JSON encoder for `Encodable` bodies; by default ModelKit's `ModelCoding.makeEncoder()`.
        public var makeJSONEncoder: @Sendable () -> JSONEncoder = { ModelCoding.makeEncoder() }
        /// Compressed answers: asked for with `Accept-Encoding` and decoded as they stream in (the default), or
        /// left alone.
        public var decompression = ResponseDecompression.automatic
        /// Header fields that carry secrets besides `Authorization`, `Proxy-Authorization` and `Cookie` (an API key
        /// header, say). Fields with these names are redacted in logs and observers and dropped when a redirect
        /// leaves the origin. A single field can be marked on its own with ``RequestBuilder/header(_:_:sensitive:)``
        /// or by giving it the indexing strategy `.disallow`, which is how a field is marked sensitive here.
        public var sensitiveHeaderNames: Set<HTTPField.Name> = []
        /// When and how often failed requests are sent again, or `nil` (the default) for never. See
        /// <doc:Retry>.
        public var retryPolicy: RetryPolicy?
        /// Puts credentials on every request and refreshes them when the server rejects them, or `nil` (the
        /// default). See <doc:Authentication>.
        public var authenticator: (any Authenticator)?
        /// What happens to a `GET` or `HEAD` request while an identical one is in flight: sent anyway (``DuplicatePolicy/allow``,
        /// the default), rejected, or coalesced into one request to the server. A request's own policy wins. See
        /// <doc:DuplicateRequests>.
        public var duplicatePolicy = DuplicatePolicy.allow
        /// Records a span for each request and a child span for each attempt sent to the server, and puts the
        /// attempt's trace context in its header fields (`traceparent` with an OpenTelemetry tracer); `nil` traces
        /// nothing and costs nothing. By default the tracer the application installed when the configuration was
        /// made (``RequestTracing/installedTracer``): bootstrap tracing before making clients. See <doc:Tracing>.
        public var tracer: (any Tracer)? = RequestTracing.installedTracer

        /// Creates the default configuration.
        public init() {}
    }

    /// Where requests go.
    public let environment: any EnvironmentProvider
    /// The settings of every request.
    public let configuration: Configuration
    private let chain: MiddlewareChain
    private let counter: RequestCounter
    /// The configuration's header fields with the client's own defaults (`Accept-Encoding`, `User-Agent`) and the
    /// sensitive ones marked, merged once here instead of for every request.
    private let headerFields: HTTPFields
    /// The same with the default `Accept` of a model (`application/json`) and of content decoded by media type
    /// (`*/*`), the two every one-call request uses.
    private let jsonHeaderFields: HTTPFields
    private let anyHeaderFields: HTTPFields
    /// What reading a body in memory needs of the configuration, in one object (see ``ReadingSettings``).
    private let reading: ReadingSettings

    /// Creates a client.
    public init(
        environment: any EnvironmentProvider,
        transport: any Transport,
        configuration: Configuration = Configuration()
    ) {
        self.environment = environment
        self.configuration = configuration
        self.chain = MiddlewareChain(
            middleware: Self.assembleMiddleware(configuration),
            transport: transport,
            decompression: configuration.decompression,
            observers: configuration.observers,
            tracer: configuration.tracer,
            environment: environment
        )
        self.counter = RequestCounter()
        var headerFields = configuration.headerFields
        if configuration.decompression.isEnabled, headerFields[.acceptEncoding] == nil {
            headerFields[.acceptEncoding] = ResponseDecompression.acceptEncoding
        }
        Self.markSensitive(&headerFields, configuration.sensitiveHeaderNames)
        DefaultHeaderFields.fill(&headerFields, accept: nil)
        self.headerFields = headerFields
        var jsonHeaderFields = headerFields
        DefaultHeaderFields.fill(&jsonHeaderFields, accept: DefaultHeaderFields.json)
        self.jsonHeaderFields = jsonHeaderFields
        var anyHeaderFields = headerFields
        DefaultHeaderFields.fill(&anyHeaderFields, accept: DefaultHeaderFields.any)
        self.anyHeaderFields = anyHeaderFields
        self.reading = ReadingSettings(
            maximumBodySize: configuration.maximumBodySize,
            decoders: configuration.decoders,
            makeJSONDecoder: configuration.makeJSONDecoder
        )
    }

    /// The client's header fields with the default `Accept` for `accept`.
    private func headerFields(accepting accept: String?) -> HTTPFields {
        switch accept {
        case nil: return headerFields
        case DefaultHeaderFields.json: return jsonHeaderFields
        case DefaultHeaderFields.any: return anyHeaderFields
        case let accept?:
            var fields = headerFields
            DefaultHeaderFields.fill(&fields, accept: accept)
            return fields
        }
    }

    /// Sends a fully built request through the middleware chain and returns the response with its body unread.
    ///
    /// This is the lowest level of the client: no validation or decoding, and observers are not told. The client
    /// stays locked to its environment here too: a request whose URL is not on the current environment's origin
    /// (scheme, host and port) is refused with ``RequestKitError/Code/invalidPath`` before any middleware sees it.
    /// `Accept-Encoding` and `User-Agent` are added where the request has none, and compressed answers are decoded,
    /// as in every other call.
    public func send(_ request: ClientRequest) async throws -> ClientResponse {
        let environment = self.environment.currentEnvironment
        try environment.requireOrigin(
            of: request,
            reason: "the client is locked to \(environment.name) and sends nowhere else"
        )
        var request = request
        request.originChecked = true
        if configuration.decompression.isEnabled, request.headerFields[.acceptEncoding] == nil {
            request.headerFields[.acceptEncoding] = ResponseDecompression.acceptEncoding
        }
        DefaultHeaderFields.fill(&request.headerFields, accept: nil)
        Self.markSensitive(&request.headerFields, configuration.sensitiveHeaderNames)
        return try await chain.send(
            request,
            from: Self.firstStep(for: request, policy: configuration.duplicatePolicy)
        )
    }

    /// Where the client's middleware starts work that outlives a request, such as the cache's revalidation behind
    /// a `stale-while-revalidate` answer (``MiddlewareNext/backgroundWork``). Copies of a client share it.
    public var backgroundWork: BackgroundWork { chain.backgroundWork }

    /// Cancels the work the client's middleware started in the background and waits for it to end.
    ///
    /// Call it when the client is no longer needed, before shutting down its transport. Requests can still be sent
    /// afterwards, but no new background work starts: a stale answer within `stale-while-revalidate` is then
    /// revalidated before it is returned. Copies of the client share what this shuts down.
    public func shutdown() async {
        await chain.backgroundWork.shutdown()
    }

    /// Marks the fields named in `names` as sensitive (indexing strategy `.disallow`).
    static func markSensitive(_ fields: inout HTTPFields, _ names: Set<HTTPField.Name>) {
        guard !names.isEmpty else { return }
        for index in fields.indices where names.contains(fields[index].name) {
            fields[index].indexingStrategy = .disallow
        }
    }

    // MARK: - Running requests

    /// What a response handler returns: the value, and how many body bytes it read.
    struct Outcome<Value: Sendable>: Sendable {
        var value: Value
        var bytesReceived: Int64
    }

    /// A described request resolved against the current environment, ready for the middleware chain.
    struct Prepared: Sendable {
        var request: ClientRequest
        var environment: ServiceEnvironment
        var decorators: [any Middleware]
    }

    /// Resolves a described request against the current environment and merges the client's settings into it.
    ///
    /// - Throws: ``RequestKitError/Code/invalidPath`` for a path that does not resolve, and
    ///   ``RequestKitError/Code/offline`` while the reachability monitor reports the host unreachable.
    func prepare(_ descriptor: RequestDescriptor) throws(RequestKitError) -> Prepared {
        let operation = descriptor.operationName
        let environment = self.environment.currentEnvironment
        let url: URL
        do {
            url = try descriptor.url(in: environment)
        } catch {
            throw error.adding(operation: operation, url: nil)
        }
        var headerFields = self.headerFields(accepting: descriptor.defaultAccept)
        // Merging copies the client's fields; most requests have none of their own, so they share the storage.
        // A request's own field replaces the client's and the default one of the same name.
        if !descriptor.headerFields.isEmpty {
            for field in descriptor.headerFields {
                headerFields[fields: field.name] = []
            }
            headerFields.append(contentsOf: descriptor.headerFields)
            Self.markSensitive(&headerFields, configuration.sensitiveHeaderNames)
        }
        var request = ClientRequest(
            method: descriptor.method,
            url: url,
            headerFields: headerFields,
            body: descriptor.body,
            timeouts: descriptor.timeouts ?? configuration.timeouts,
            operation: operation,
            cachePolicy: descriptor.cachePolicy
        )
        request.retryMode = descriptor.retryMode
        request.duplicatePolicy = descriptor.duplicatePolicy
        // Resolved against the environment: on its origin.
        request.originChecked = true
        if let status = configuration.reachability?.status, status.isUnreachable {
            throw RequestKitError(
                .offline,
                subject: environment.name,
                reason: "the host is unreachable: \(status.reason ?? "no reason given")",
                operation: operation,
                url: url
            )
        }
        // Without decorators no array of existentials is built.
        let decorators: [any Middleware] = descriptor.decorators.isEmpty ? [] : descriptor.decorators
        return Prepared(request: request, environment: environment, decorators: decorators)
    }

    /// The name of a request's span: the endpoint's own name, or `nil` for the method alone when the request has
    /// none or it is the default `"METHOD path"`, whose path may hold identifiers (OpenTelemetry asks for names of
    /// low cardinality).
    static func spanName(of descriptor: RequestDescriptor) -> String {
        guard let name = descriptor.operation, !name.hasSuffix(descriptor.path) else {
            return descriptor.method.rawValue
        }
        return name
    }

    /// Whether a request needs none of the machinery around sending: no observers to tell, no overall timeout and
    /// no in-flight policy that could cut it short.
    func runsPlain(_ request: ClientRequest) -> Bool {
        configuration.observers.isEmpty && request.timeouts.overall == nil && configuration.inFlightPolicy != .cancel
            && configuration.tracer == nil
    }

    /// Runs a described request and hands the response to `handle`, with events, limits and error context.
    func run<Value: Sendable>(
        _ descriptor: RequestDescriptor,
        handle: @escaping @Sendable (ClientResponse) async throws -> Outcome<Value>
    ) async throws(RequestKitError) -> Value {
        let prepared = try prepare(descriptor)
        guard configuration.tracer != nil else { return try await runObserved(prepared, handle: handle) }
        return try await runTraced(prepared, named: Self.spanName(of: descriptor), handle: handle)
    }

    /// Runs a prepared request in a span named `name` (the endpoint's name or the method: OpenTelemetry asks for
    /// names of low cardinality) and hands the response to `handle`, with events, limits and error context.
    @inline(never)
    func runTraced<Value: Sendable>(
        _ prepared: Prepared,
        named name: String,
        handle: @escaping @Sendable (ClientResponse) async throws -> Outcome<Value>
    ) async throws(RequestKitError) -> Value {
        guard let tracer = configuration.tracer else { return try await runObserved(prepared, handle: handle) }
        let request = prepared.request
        let span = tracer.startSpan(
            name,
            context: ServiceContext.current ?? .topLevel,
            ofKind: .internal
        )
        RequestTracing.setRequestAttributes(span, request)
        if let length = request.body?.length { span.attributes[RequestTracing.AttributeKey.requestBodySize] = length }
        do {
            let value = try await ServiceContext.$current.withValue(span.context) {
                try await runObserved(prepared) { response in
                    span.attributes[RequestTracing.AttributeKey.statusCode] = response.status.code
                    if let report = RequestTracing.cacheReport(in: response.headerFields) {
                        span.attributes[RequestTracing.AttributeKey.cacheStatus] = String(report)
                        span.attributes[RequestTracing.AttributeKey.cacheResult] = RequestTracing.cacheResult(report)
                    }
                    let outcome = try await handle(response)
                    span.attributes[RequestTracing.AttributeKey.responseBodySize] = outcome.bytesReceived
                    return outcome
                }
            }
            span.end()
            return value
        } catch {
            let wrapped = RequestKitError.wrapping(error, operation: request.operation, url: request.url)
            RequestTracing.setFailure(span, wrapped)
            span.end()
            throw wrapped
        }
    }

    /// Runs a prepared request and hands the response to `handle`, with events, limits and error context.
    func runObserved<Value: Sendable>(
        _ prepared: Prepared,
        handle: @escaping @Sendable (ClientResponse) async throws -> Outcome<Value>
    ) async throws(RequestKitError) -> Value {
        var request = prepared.request
        let environment = prepared.environment
        let decorators = prepared.decorators
        let operation = request.operation
        let url = request.url
        let headerFields = request.headerFields
        let timeouts = request.timeouts
        let observers = configuration.observers
        if runsPlain(request) {
            return try await runWithoutObservers(request, innermost: decorators, handle: handle)
        }
        // Request numbers are only needed by observers; skipping them keeps a shared atomic off the hot path of
        // concurrent requests.
        let id = observers.isEmpty ? 0 : counter.next()
        request.observationID = id
        let shownURL = observers.isEmpty ? url : Redaction.redact(url)
        if !observers.isEmpty {
            let event = RequestStarted(
                id: id,
                operation: operation,
                method: request.method,
                url: shownURL,
                redactedHeaderFields: Redaction.redact(headerFields)
            )
            for observer in observers { observer.requestStarted(event) }
        }
        let started = ContinuousClock.now
        let status = Mutex<Int?>(nil)
        let cacheResult = Mutex<String?>(nil)
        let chain = self.chain
        let sending = request
        let first = Self.firstStep(for: request, policy: configuration.duplicatePolicy)
        do {
            let outcome = try await withLimits(overall: timeouts.overall, sentTo: environment) {
                let response = try await chain.send(
                    sending,
                    from: first,
                    innermost: decorators
                )
                status.withLock { $0 = response.status.code }
                if !observers.isEmpty, let report = RequestTracing.cacheReport(in: response.headerFields) {
                    cacheResult.withLock { $0 = RequestTracing.cacheResult(report) }
                }
                return try await handle(response)
            }
            if !observers.isEmpty {
                let event = RequestFinished(
                    id: id,
                    operation: operation,
                    method: request.method,
                    url: shownURL,
                    duration: ContinuousClock.now - started,
                    status: status.withLock { $0 },
                    bytesSent: request.body?.length,
                    bytesReceived: outcome.bytesReceived,
                    error: nil,
                    cacheResult: cacheResult.withLock { $0 }
                )
                for observer in observers { observer.requestFinished(event) }
            }
            return outcome.value
        } catch {
            var wrapped = RequestKitError.wrapping(error, operation: operation, url: url)
            if wrapped.status == nil { wrapped.status = status.withLock { $0 } }
            if !observers.isEmpty {
                let event = RequestFinished(
                    id: id,
                    operation: operation,
                    method: request.method,
                    url: shownURL,
                    duration: ContinuousClock.now - started,
                    status: wrapped.status,
                    bytesSent: request.body?.length,
                    bytesReceived: 0,
                    error: wrapped,
                    cacheResult: cacheResult.withLock { $0 }
                )
                for observer in observers { observer.requestFinished(event) }
            }
            throw wrapped
        }
    }

    /// The common case of ``run(_:handle:)``: nobody observes the request and nothing can cut it short, so it
    /// needs no task group, no shared status cell and no events, only the same error context.
    private func runWithoutObservers<Value: Sendable>(
        _ request: ClientRequest,
        innermost decorators: [any Middleware],
        handle: @escaping @Sendable (ClientResponse) async throws -> Outcome<Value>
    ) async throws(RequestKitError) -> Value {
        let response: ClientResponse
        do {
            response = try await chain.send(
                request,
                from: Self.firstStep(for: request, policy: configuration.duplicatePolicy),
                innermost: decorators
            )
        } catch {
            throw RequestKitError.wrapping(error, operation: request.operation, url: request.url)
        }
        do {
            return try await handle(response).value
        } catch {
            var wrapped = RequestKitError.wrapping(error, operation: request.operation, url: request.url)
            if wrapped.status == nil { wrapped.status = response.status.code }
            throw wrapped
        }
    }

    /// Runs a described request and decodes its body in memory, on the caller's executor.
    nonisolated(nonsending) func perform<Value: Sendable>(
        _ descriptor: consuming RequestDescriptor,
        decoding: ResponseDecoding<Value>
    ) async throws(RequestKitError) -> DecodedResponse<Value> {
        // Only what decoding needs is kept, not the whole configuration.
        let reader = ResponseReader(
            settings: reading,
            validation: descriptor.validation,
            method: descriptor.method,
            decoding: decoding
        )
        descriptor.expect(decoding.accept)
        let prepared = try prepare(descriptor)
        guard runsPlain(prepared.request) else {
            guard configuration.tracer != nil else {
                return try await runObserved(prepared) { response in try await reader.read(response) }
            }
            return try await runTraced(prepared, named: Self.spanName(of: descriptor)) { response in
                try await reader.read(response)
            }
        }
        // The common case, sent and read directly: no response closure to allocate, no frames in between, and the
        // request is not copied out of `prepared` (a copy counts references other tasks count too).
        let response: ClientResponse
        do {
            response = try await chain.send(
                prepared.request,
                from: Self.firstStep(for: prepared.request, policy: configuration.duplicatePolicy),
                innermost: prepared.decorators
            )
        } catch {
            throw RequestKitError.wrapping(error, operation: prepared.request.operation, url: prepared.request.url)
        }
        do {
            return try await reader.read(response).value
        } catch {
            var wrapped = RequestKitError.wrapping(
                error,
                operation: prepared.request.operation,
                url: prepared.request.url
            )
            if wrapped.status == nil { wrapped.status = response.status.code }
            throw wrapped
        }
    }

    /// Runs `operation` under the overall timeout and the in-flight policy.
    private func withLimits<Value: Sendable>(
        overall: Duration?,
        sentTo environment: ServiceEnvironment,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let watchesEnvironment = configuration.inFlightPolicy == .cancel
        guard overall != nil || watchesEnvironment else {
            return try await operation()
        }
        let provider = self.environment
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await operation() }
            if let overall {
                group.addTask {
                    try await Task.sleep(for: overall)
                    throw RequestKitError(
                        .timedOut,
                        subject: environment.name,
                        reason: "the request took longer than \(overall)"
                    )
                }
            }
            if watchesEnvironment {
                group.addTask {
                    let changes = provider.changes()
                    var switched = provider.currentEnvironment
                    if switched == environment {
                        for await next in changes where next != environment {
                            switched = next
                            break
                        }
                    }
                    guard switched != environment, !Task.isCancelled else { return nil }
                    throw RequestKitError(
                        .cancelled,
                        subject: environment.name,
                        reason: "the environment switched to \(switched.name)"
                    )
                }
            }
            while let next = try await group.next() {
                if let value = next {
                    group.cancelAll()
                    return value
                }
            }
            throw CancellationError()
        }
    }
}

/// Hands out request numbers unique within a client.
final class RequestCounter: Sendable {
    private let value = Atomic<UInt64>(0)

    func next() -> UInt64 {
        value.add(1, ordering: .relaxed).newValue
    }
}

/// What reading and decoding a body in memory needs of a client's configuration, made once per client.
///
/// Requests copy it into their reader and decoding input. Held in one object, a copy counts one reference instead of
/// one per field: the same counts are changed by every request from every core, and with requests on two cores at
/// once each shared count is a cache line the cores pass back and forth.
final class ReadingSettings: Sendable {
    let maximumBodySize: Int
    let decoders: DecoderRegistry
    let makeJSONDecoder: (@Sendable () -> JSONDecoder)?

    init(maximumBodySize: Int, decoders: DecoderRegistry, makeJSONDecoder: (@Sendable () -> JSONDecoder)?) {
        self.maximumBodySize = maximumBodySize
        self.decoders = decoders
        self.makeJSONDecoder = makeJSONDecoder
    }
}

/// Collects, validates and decodes a response body in memory: the part of a one-call request after the response
/// head arrives.
struct ResponseReader<Value: Sendable>: Sendable {
    let settings: ReadingSettings
    let validation: ResponseValidation
    let method: HTTPRequest.Method
    let decoding: ResponseDecoding<Value>

    nonisolated(nonsending) func read(
        _ response: ClientResponse
    ) async throws -> RequestClient.Outcome<DecodedResponse<Value>> {
        let data = try await response.body.collect(upTo: settings.maximumBodySize)
        let status = response.status.code
        guard validation.accepts(status: status) else {
            var error = RequestKitError(
                .unacceptableStatus,
                subject: response.url.absoluteString,
                reason: "the server answered \(status) \(response.status.reasonPhrase)",
                status: status
            )
            if let decodeErrorBody = validation.errorBodyDecoder, !data.isEmpty {
                error.errorBody = decodeErrorBody(data)
            }
            throw error
        }
        let contentType = response.contentType
        if !data.isEmpty, !validation.accepts(contentType: contentType) {
            throw RequestKitError(
                .unacceptableContentType,
                subject: contentType ?? "no content type",
                reason: "the request does not accept this content type",
                status: status
            )
        }
        let input = DecodingInput(
            status: status,
            contentType: contentType,
            data: data,
            method: method,
            settings: settings
        )
        let value = try decoding.decode(input)
        return RequestClient.Outcome(
            value: DecodedResponse(
                value: value,
                status: response.status,
                headerFields: response.headerFields,
                url: response.url
            ),
            bytesReceived: Int64(data.count)
        )
    }
}
