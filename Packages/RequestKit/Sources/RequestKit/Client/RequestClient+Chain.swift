import HTTPTypes

extension RequestClient {
    /// The client's middleware in the documented order, outermost first.
    ///
    /// Observers, logs and metrics sit outside all of them (in ``RequestClient``'s run of a request); then the
    /// duplicate-request policy, the cache, retries, authentication, and the configuration's own ``Middleware``.
    /// Per-request decorators run inside all of these, just before the transport.
    static func assembleMiddleware(_ configuration: Configuration) -> [any Middleware] {
        // Outermost: a shared request must be found before anything else runs for it.
        var steps: [any Middleware] = [
            DuplicateRequestMiddleware(
                policy: configuration.duplicatePolicy,
                maximumBodySize: configuration.maximumBodySize
            )
        ]
        if let cache = configuration.cache { steps.append(cache.middleware) }
        if let retryPolicy = configuration.retryPolicy {
            steps.append(RetryMiddleware(policy: retryPolicy, observers: configuration.observers))
        }
        if let authenticator = configuration.authenticator {
            steps.append(authentication(authenticator))
        }
        steps += configuration.middleware
        return steps
    }

    /// The first of the client's steps a request goes through: the duplicate-request step, which is always the
    /// first (``assembleMiddleware(_:)``), only for a `GET` or `HEAD` whose policy is not ``DuplicatePolicy/allow``.
    /// Every other request starts after it, so a plain request does not go through a step with nothing to do.
    static func firstStep(for request: ClientRequest, policy: DuplicatePolicy) -> Int {
        let duplicates = request.duplicatePolicy ?? policy
        return duplicates.isAllow || (request.method != .get && request.method != .head) ? 1 : 0
    }

    /// The authentication step for a concrete authenticator type.
    private static func authentication<A: Authenticator>(_ authenticator: A) -> any Middleware {
        AuthenticationMiddleware(authenticator: authenticator)
    }
}
