public import Dispatch

extension RequestClient {
    /// Sends an endpoint's request and returns its decoded response value.
    public func send<Response: Sendable>(_ endpoint: Endpoint<Response>) async throws(RequestKitError) -> Response {
        try await perform(endpoint.descriptor, decoding: endpoint.decoding).value
    }

    /// Sends an endpoint's request and returns the decoded value with status and header fields.
    public func response<Response: Sendable>(
        for endpoint: Endpoint<Response>
    ) async throws(RequestKitError)
        -> DecodedResponse<Response>
    {
        try await perform(endpoint.descriptor, decoding: endpoint.decoding)
    }

    /// Sends an endpoint's request with callbacks on `completionQueue`, returning a token to cancel it.
    @discardableResult
    public func send<Response: Sendable>(
        _ endpoint: Endpoint<Response>,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (Response) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        start(completionQueue: completionQueue, success: success, failure: failure) {
            try await send(endpoint)
        }
    }
}
