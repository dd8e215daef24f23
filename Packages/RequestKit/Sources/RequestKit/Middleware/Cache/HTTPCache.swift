public import Foundation
import HTTPTypes
import Synchronization

/// A private HTTP cache (RFC 9111) in the client's middleware chain, keeping answers in a ``CacheStore``.
///
/// ```swift
/// var configuration = RequestClient.Configuration()
/// configuration.cache = HTTPCache(store: MemoryCacheStore(maximumBytes: 16 * 1024 * 1024))
/// let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
/// ```
///
/// A fresh stored answer is returned without sending anything; a stale one is revalidated with `If-None-Match` or
/// `If-Modified-Since`; `stale-if-error` answers stand in when the server fails. Every answer the cache handled
/// carries a `Cache-Status` field (RFC 9211) such as `RequestKit; hit; ttl=60` or
/// `RequestKit; fwd=stale; fwd-status=304`. Each request's ``CachePolicy`` decides how it uses the cache. See
/// <doc:Caching>.
public final class HTTPCache: Sendable {
    /// Where the answers are kept.
    public let store: any CacheStore
    /// The cache's clock.
    let now: @Sendable () -> Date
    /// The stored answers being revalidated in the background, so that each is refreshed once at a time.
    private let refreshing = Mutex<Set<CacheKey>>([])
    /// Keys already made from request URLs: normalising a URL costs more than the rest of a lookup. Bounded: it
    /// starts over when full.
    private let keys = Mutex(Keys())
    private static let remembersKeys = 512

    private struct Keys {
        var byURL: [String: CacheKey] = [:]
        /// The key used last, with the URL text it was made from.
        var last: (text: String, key: CacheKey)?
    }

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - store: where answers are kept; by default a ``MemoryCacheStore`` with its default bounds.
    ///   - now: the clock that ages stored answers; tests pass their own.
    public init(store: any CacheStore = MemoryCacheStore(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// Removes the stored answers that can no longer be used without asking the server
    /// (``CachedResponse/expiry``).
    public func removeExpired() async throws {
        try await wrapped { try await store.removeExpired(now: now()) }
    }

    /// Removes every stored answer.
    public func removeAll() async throws {
        try await wrapped { try await store.removeAll() }
    }

    private func wrapped(_ operation: () async throws -> Void) async throws(RequestKitError) {
        do {
            try await operation()
        } catch let error as RequestKitError {
            throw error
        } catch {
            throw RequestKitError(
                .fileSystem,
                subject: "HTTP cache",
                reason: "the cache store failed",
                underlying: error
            )
        }
    }

    /// The key of a `GET` of `url`.
    func key(for url: URL) -> CacheKey {
        let text = url.absoluteString
        let known = keys.withLock { keys -> CacheKey? in
            // A client that asks for one URL again and again hands in the same text each time: comparing it with the
            // last one is a pointer comparison, where the dictionary hashes all of it.
            if keys.last?.text == text { return keys.last?.key }
            guard let key = keys.byURL[text] else { return nil }
            keys.last = (text, key)
            return key
        }
        if let known { return known }
        let key = CacheKey(method: .get, url: url)
        keys.withLock { keys in
            if keys.byURL.count >= Self.remembersKeys { keys.byURL.removeAll(keepingCapacity: true) }
            keys.byURL[text] = key
            keys.last = (text, key)
        }
        return key
    }

    /// Marks `key` as being refreshed; `false` when a refresh of it is already running.
    func beginRefresh(_ key: CacheKey) -> Bool {
        refreshing.withLock { $0.insert(key).inserted }
    }

    func endRefresh(_ key: CacheKey) {
        _ = refreshing.withLock { $0.remove(key) }
    }

    /// The cache as a step of the middleware chain.
    var middleware: any Middleware { CacheMiddleware(cache: self) }
}

/// ``HTTPCache`` in the middleware chain. A `stale-while-revalidate` hit keeps `next` to revalidate through the
/// client's ``MiddlewareNext/backgroundWork`` after the request was answered.
struct CacheMiddleware: Middleware {
    let cache: HTTPCache

    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        try await CacheLookup(cache: cache).run(request, next: next)
    }
}
