import Foundation
import HTTPTypes

/// Requests through the HTTP cache: looks in the store, decides (``CacheDecision``), forwards or answers, and
/// stores what comes back.
///
/// The request is a parameter of each step, not a stored property: a hit then reads the caller's request in place
/// instead of copying it (and every reference it holds) into a value of its own.
struct CacheLookup {
    let cache: HTTPCache

    private var store: any CacheStore { cache.store }

    /// Runs the request through the cache. The revalidation behind a `stale-while-revalidate` answer keeps `next`
    /// and runs in the client's ``MiddlewareNext/backgroundWork``; once that is shut down, the answer is revalidated
    /// before it is returned.
    nonisolated(nonsending) func run(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        guard CacheRules.isSafe(request.method) else {
            let response = try await next(request)
            if (200..<400).contains(response.status.code) {
                for key in CacheRules.invalidatedKeys(request: request, response: response) {
                    try? await store.remove(key)
                }
            }
            return Self.reporting(response, "fwd=method")
        }
        guard request.method == .get || request.method == .head else {
            return Self.reporting(try await next(request), "fwd=method")
        }
        let policy = request.cachePolicy
        guard !policy.bypassesCache, let requestControl = Self.control(ofCachingRequest: request.headerFields) else {
            return Self.reporting(try await next(request), "fwd=bypass")
        }
        let key = cache.key(for: request.url)
        if policy.reloads {
            return try await forward(
                request,
                key: key,
                requestControl: requestControl,
                report: "fwd=bypass",
                next: next
            )
        }
        let variants = (try? await store.entries(for: key)) ?? []
        // The newest matching variant.
        var selected: Int?
        for index in variants.indices where CacheRules.varyMatches(variants[index], request) {
            if let chosen = selected, variants[chosen].responseTime >= variants[index].responseTime { continue }
            selected = index
        }
        let onlyFromCache = policy.answersOnlyFromCache || requestControl.onlyIfCached
        guard let selected, (100...599).contains(variants[selected].status) else {
            if onlyFromCache { throw notCached(request) }
            let report = variants.isEmpty ? "fwd=miss" : "fwd=vary-miss"
            return try await forward(request, key: key, requestControl: requestControl, report: report, next: next)
        }
        let entry = variants[selected]
        let now = cache.now()
        let freshness = CacheDecision.Freshness(entry, at: now)
        switch CacheDecision.decide(policy: policy, requestControl: requestControl, freshness: freshness) {
        case .hit:
            return hit(entry, for: request, freshness: freshness, revalidating: false)
        case .hitWhileRevalidating:
            guard request.method == .get,
                refreshInBackground(entry, for: request, requestControl: requestControl, next: next)
            else {
                return try await revalidate(
                    entry,
                    for: request,
                    requestControl: requestControl,
                    report: "fwd=stale",
                    next: next
                )
            }
            return hit(entry, for: request, freshness: freshness, revalidating: true)
        case .notCached:
            throw notCached(request)
        case .revalidate(let byRequest):
            let report = byRequest ? "fwd=request" : "fwd=stale"
            guard request.method == .get else {
                return try await forward(request, key: key, requestControl: requestControl, report: report, next: next)
            }
            return try await revalidate(entry, for: request, requestControl: requestControl, report: report, next: next)
        }
    }

    /// The request's `Cache-Control` directives (``CacheControl/init(_:)``), or `nil` when it carries its own
    /// validators or asks for a range: such a request gets the server's answer as it is.
    ///
    /// One pass over the fields, comparing names only when the first letter could match (`c`ache-control,
    /// `p`ragma, `i`f-…, `r`ange): most requests carry none of them, and the lookups by name each walked all fields.
    static func control(ofCachingRequest fields: HTTPFields) -> CacheControl? {
        var mayControl = false
        for field in fields {
            switch field.name.canonicalName.utf8.first {
            case UInt8(ascii: "i"):
                let name = field.name
                if name == .ifNoneMatch || name == .ifModifiedSince || name == .ifMatch || name == .ifUnmodifiedSince
                    || name == .ifRange
                {
                    return nil
                }
            case UInt8(ascii: "r"):
                if field.name == .range { return nil }
            case UInt8(ascii: "c"), UInt8(ascii: "p"):
                mayControl = true
            default:
                break
            }
        }
        return mayControl ? CacheControl(fields) : CacheControl()
    }

    // MARK: - Forwarding

    /// Sends `outgoing` and stores the answer if it may be stored.
    private nonisolated(nonsending) func forward(
        _ outgoing: ClientRequest,
        key: CacheKey,
        requestControl: CacheControl,
        report: String,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        let requestTime = cache.now()
        let response = try await next(outgoing)
        return storing(
            response,
            for: outgoing,
            key: key,
            requestControl: requestControl,
            requestTime: requestTime,
            report: report
        )
    }

    /// `response` with a body that stores the answer once it is complete, if the answer may be stored.
    private func storing(
        _ response: consuming ClientResponse,
        for request: ClientRequest,
        key: CacheKey,
        requestControl: CacheControl,
        requestTime: Date,
        report: String
    ) -> ClientResponse {
        let limit = store.maximumBodySize
        guard CacheRules.isStorable(request: request, requestControl: requestControl, response: response),
            let varying = CacheRules.varyingValues(of: request, vary: response.headerFields[.vary]),
            (response.expectedLength ?? 0) <= Int64(limit)
        else { return Self.reporting(response, report) }
        let responseTime = cache.now()
        let entry = CachedResponse(
            key: key,
            varyingHeaderValues: varying,
            status: response.status.code,
            headerFields: CacheRules.storedFields(response.headerFields),
            body: Data(),
            url: response.url,
            requestTime: requestTime,
            responseTime: responseTime
        )
        let store = self.store
        var stored = response
        stored.body = StoringBody.wrap(stored.body, limit: limit) { body in
            var complete = entry
            complete.body = body
            complete.prepareFirstHits()
            try? await store.store(complete)
        }
        return Self.reporting(stored, report + "; stored")
    }

    // MARK: - Revalidation

    private nonisolated(nonsending) func revalidate(
        _ entry: CachedResponse,
        for request: ClientRequest,
        requestControl: CacheControl,
        report: String,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        let conditional = CacheRules.conditional(request, for: entry)
        let requestTime = cache.now()
        let response: ClientResponse
        do {
            response = try await next(conditional ?? request)
        } catch {
            let now = cache.now()
            guard Self.isUnreachable(error),
                CacheDecision.mayServeStaleOnError(entry: entry, requestControl: requestControl, now: now)
            else { throw error }
            return answer(entry, for: request, at: now, report: report + "; detail=stale-if-error")
        }
        let responseTime = cache.now()
        let status = response.status.code
        if status == 304, conditional != nil {
            await Self.discard(response.body)
            guard CacheRules.notModified(response.headerFields, selects: entry) else {
                // The server's answer is about another representation: ask again for the whole answer.
                return try await forward(
                    request,
                    key: entry.key,
                    requestControl: requestControl,
                    report: report,
                    next: next
                )
            }
            let freshened = CacheRules.freshen(
                entry,
                with: response.headerFields,
                requestTime: requestTime,
                responseTime: responseTime
            )
            try? await store.store(freshened)
            return answer(freshened, for: request, at: responseTime, report: report + "; fwd-status=304; stored")
        }
        if CacheRules.errorStatuses.contains(status),
            CacheDecision.mayServeStaleOnError(entry: entry, requestControl: requestControl, now: responseTime)
        {
            await Self.discard(response.body)
            return answer(
                entry,
                for: request,
                at: responseTime,
                report: report + "; fwd-status=\(status); detail=stale-if-error"
            )
        }
        return storing(
            response,
            for: request,
            key: entry.key,
            requestControl: requestControl,
            requestTime: requestTime,
            report: report + "; fwd-status=\(status)"
        )
    }

    /// Revalidates `entry` in the client's background work, one at a time per stored answer, reading the answer to
    /// its end so that it is stored. Returns `false` when the background work refused it (the client shut down):
    /// the caller then revalidates before answering.
    private func refreshInBackground(
        _ entry: CachedResponse,
        for request: ClientRequest,
        requestControl: CacheControl,
        next: MiddlewareNext
    ) -> Bool {
        // A refresh of this answer is already running: its result serves this request's successors too.
        guard cache.beginRefresh(entry.key) else { return true }
        let lookup = self
        let started = next.backgroundWork.run {
            defer { lookup.cache.endRefresh(entry.key) }
            guard
                let response = try? await lookup.revalidate(
                    entry,
                    for: request,
                    requestControl: requestControl,
                    report: "fwd=stale",
                    next: next
                )
            else { return }
            await Self.discard(response.body)
        }
        if !started { cache.endRefresh(entry.key) }
        return started
    }

    /// Errors after which a stale answer may stand in: the server could not be reached or did not answer in time.
    private static func isUnreachable(_ error: any Error) -> Bool {
        guard let error = error as? RequestKitError else { return false }
        return error.code == .connectionRefused || error.code == .transportFailed || error.code == .timedOut
    }

    /// Reads and drops a body the caller never sees, so its connection can be reused.
    private static func discard(_ body: ClientResponse.Body) async {
        do {
            for try await _ in body {}
        } catch {
            // The stored answer is returned either way.
        }
    }

    // MARK: - Answers

    /// The response for a fresh hit, or a stale one within `stale-while-revalidate` (`revalidating`): the stored
    /// answer with its current `Age` and a `Cache-Status` whose `ttl` is the freshness left, negative for a stale
    /// answer (RFC 9211 section 2.6). Hits within the same second share one response (``CachedResponse/Answers``).
    private func hit(
        _ entry: CachedResponse,
        for request: ClientRequest,
        freshness: CacheDecision.Freshness,
        revalidating: Bool
    ) -> ClientResponse {
        let response = entry.hitResponse(
            age: Int(max(0, freshness.age)),
            ttl: freshness.ttl,
            revalidating: revalidating
        )
        // Changed only for HEAD: a `var` changed under a condition, like an `if let` of the kept response, cost
        // the optimized build one more copy of the response per hit.
        guard request.method == .head else { return response }
        var head = response
        head.body = .empty
        return head
    }

    /// The stored answer as a response, with its current `Age` and the cache's report.
    private func answer(
        _ entry: CachedResponse,
        for request: ClientRequest,
        at now: Date,
        report: String
    )
        -> ClientResponse
    {
        answer(entry, for: request, age: CacheRules.age(of: entry, at: now), report: report)
    }

    /// The stored answer as a response, with `age` as its `Age` and the cache's report.
    private func answer(
        _ entry: CachedResponse,
        for request: ClientRequest,
        age: TimeInterval,
        report: String
    )
        -> ClientResponse
    {
        var fields = entry.headerFields
        fields[.age] = String(Int(max(0, age)))
        let body = request.method == .head ? ClientResponse.Body.empty : ClientResponse.Body(data: entry.body)
        let response = ClientResponse(
            status: HTTPResponse.Status(code: entry.status),
            headerFields: fields,
            body: body,
            url: entry.url
        )
        return Self.reporting(response, report)
    }

    /// `response` with the cache's `Cache-Status` entry added after any of caches before it (RFC 9211).
    ///
    /// It takes the response it is handed, so that appending to fields no one else holds does not copy them.
    static func reporting(_ response: consuming ClientResponse, _ report: String) -> ClientResponse {
        var reported = response
        reported.headerFields.append(statusField(report))
        return reported
    }

    /// The `Cache-Status` field of `report`; those of the reports most requests get are made once.
    static func statusField(_ report: String) -> HTTPField {
        switch report {
        case "fwd=miss": commonStatusFields[0]
        case "fwd=miss; stored": commonStatusFields[1]
        case "fwd=method": commonStatusFields[2]
        case "fwd=bypass": commonStatusFields[3]
        case "fwd=vary-miss": commonStatusFields[4]
        default: HTTPField(name: CacheRules.cacheStatus, value: "RequestKit; " + report)
        }
    }

    private static let commonStatusFields = [
        "fwd=miss", "fwd=miss; stored", "fwd=method", "fwd=bypass", "fwd=vary-miss",
    ]
    .map { HTTPField(name: CacheRules.cacheStatus, value: "RequestKit; " + $0) }

    private func notCached(_ request: ClientRequest) -> RequestKitError {
        RequestKitError(
            .notCached,
            subject: request.url.absoluteString,
            reason: "the request may be answered only from the cache and nothing usable is stored; nothing was sent",
            operation: request.operation,
            url: request.url
        )
    }
}
