public import Foundation
public import HTTPTypes

/// A client for public resources at any absolute URL, which never sends credentials.
///
/// ``RequestClient`` is the secure client: locked to its environment's host (paths only, absolute URLs are
/// refused), carrying credentials through its middleware, and pinned through its transport. Public content on other
/// hosts (a CDN image, a map tile) goes through this client instead. It runs no credential middleware and removes
/// `Authorization`, `Proxy-Authorization`, `Cookie` and every header field marked sensitive from every request, so
/// a token can never leak to a host it was not meant for. Give it its own transport when the secure one is pinned to other hosts.
public struct PublicResourceClient: Sendable {
    private let transport: any Transport
    private let configuration: RequestClient.Configuration

    /// Creates a public client. Only `observers`, `decoders`, `timeouts`, `maximumBodySize` and `decompression` of
    /// `configuration` are used; middleware and default header fields are dropped.
    public init(transport: any Transport, configuration: RequestClient.Configuration = RequestClient.Configuration()) {
        var settings = RequestClient.Configuration()
        settings.observers = configuration.observers
        settings.decoders = configuration.decoders
        settings.timeouts = configuration.timeouts
        settings.maximumBodySize = configuration.maximumBodySize
        settings.makeJSONDecoder = configuration.makeJSONDecoder
        settings.decompression = configuration.decompression
        settings.middleware = [RequestDecorator { request in Self.stripCredentials(&request) }]
        self.transport = transport
        self.configuration = settings
    }

    /// Sends `method` to an absolute `url` and decodes the body by media type.
    public func request(
        _ method: HTTPRequest.Method,
        _ url: URL,
        headerFields: HTTPFields = [:]
    ) async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        let (client, path) = try route(url)
        return try await client.request(method, path, headerFields: headerFields)
    }

    /// `GET` an absolute `url`, decoded by media type.
    public func get(_ url: URL) async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        try await request(.get, url)
    }

    /// `GET` an absolute `url`, decoded into a model.
    public func get<Model: Decodable & Sendable>(_ url: URL, as type: Model.Type) async throws(RequestKitError) -> Model
    {
        let (client, path) = try route(url)
        return try await client.get(path, as: type)
    }

    /// Downloads an absolute `url` to `destination`, as ``RequestClient/download(_:parameters:to:resume:progress:)``.
    public func download(
        _ url: URL,
        to destination: URL,
        resume: Bool = false,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(RequestKitError) -> DownloadResult {
        let (client, path) = try route(url)
        return try await client.download(path, to: destination, resume: resume, progress: progress)
    }

    /// A client for the URL's origin and the path (with query) under it.
    private func route(_ url: URL) throws(RequestKitError) -> (RequestClient, String) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .invalidPath(url.absoluteString, reason: "it is not a valid URL")
        }
        let path = components.percentEncodedPath
        let query = components.percentEncodedQuery
        components.percentEncodedPath = "/"
        components.percentEncodedQuery = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        guard let origin = components.url else {
            throw .invalidPath(url.absoluteString, reason: "it has no origin")
        }
        let environment = try ServiceEnvironment(name: "public", baseURL: origin)
        let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
        return (client, path + (query.map { "?\($0)" } ?? ""))
    }

    static func stripCredentials(_ request: inout ClientRequest) {
        request.headerFields[.authorization] = nil
        request.headerFields[.proxyAuthorization] = nil
        request.headerFields[.cookie] = nil
        if request.headerFields.contains(where: { $0.indexingStrategy == .disallow }) {
            request.headerFields = HTTPFields(request.headerFields.filter { $0.indexingStrategy != .disallow })
        }
    }
}

/// The earlier name of ``PublicResourceClient``: it read as if the client were unsafe, while it is the one that never
/// sends credentials.
@available(*, deprecated, renamed: "PublicResourceClient")
public typealias UnsafePublicClient = PublicResourceClient
