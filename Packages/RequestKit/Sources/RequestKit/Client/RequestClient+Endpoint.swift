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
}
