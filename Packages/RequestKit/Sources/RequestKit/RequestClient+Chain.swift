extension RequestClient {
    /// The client's middleware in the documented order, outermost first.
    ///
    /// Observers, logs and metrics sit outside all of them (in ``RequestClient``'s run of a request); then the
    /// duplicate-request policy, the cache, retries, authentication, and the configuration's own ``Middleware``.
    /// Per-request decorators run inside all of these, just before the transport.
    static func assembleMiddleware(_ configuration: Configuration) -> [any Middleware] {
        var steps: [any Middleware] = []
        // cache
        if let cache = configuration.cache { steps.append(cache.middleware) }
        steps += configuration.middleware
        return steps
    }
}
