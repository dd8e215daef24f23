import Foundation
public import HTTPTypes
public import ModelKit

/// One operation on a remote resource, with the type of its response: method, path, API version, header fields,
/// query, body, validation, cache policy, timeouts and a decorator that runs just before sending.
///
/// Endpoints are values; build them in a namespace per resource and API version, and send them with
/// `RequestClient.send(_:)`:
///
/// ```swift
/// enum FleetAPI {
///     enum V2: EndpointGroup {
///         static let apiVersion: APIVersion? = .v2
///         static let resourcePath = "vehicles"
///
///         static func vehicle(_ id: Int) -> Endpoint<Vehicle> {
///             endpoint(.get, "\(id)", name: "vehicles.get", as: Vehicle.self)
///         }
///     }
/// }
/// let vehicle = try await client.send(FleetAPI.V2.vehicle(7))
/// ```
public struct Endpoint<Response: Sendable>: Sendable {
    /// The operation name used in logs, metrics, errors and mock fixture file names.
    public var name: String
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The path relative to the environment, without the version prefix.
    public var path: String
    /// The API version, if the endpoint belongs to one: its path segment (`v2`) goes before ``path``.
    public var apiVersion: APIVersion?
    /// Header fields of this endpoint (they win over the version's and the client's).
    public var headerFields: HTTPFields = [:]
    /// Query items.
    public var query: [FormField] = []
    /// The request body, if any.
    public var body: ClientRequest.Body?
    /// What counts as success, and how error bodies decode.
    public var validation = ResponseValidation.standard
    /// How the request uses the client's HTTP cache (``RequestClient/Configuration/cache``).
    public var cachePolicy = CachePolicy.useProtocol
    /// Timeouts, or `nil` for the client's.
    public var timeouts: Timeouts?
    /// Whether the client's ``RetryPolicy`` may send the request again.
    public var retryMode = RetryMode.automatic
    /// What happens while an identical request is in flight, or `nil` for the client's policy.
    public var duplicatePolicy: DuplicatePolicy?
    var decoding: ResponseDecoding<Response>
    var decorators: [RequestDecorator] = []

    init(
        name: String,
        method: HTTPRequest.Method,
        path: String,
        apiVersion: APIVersion?,
        decoding: ResponseDecoding<Response>
    ) {
        self.name = name
        self.method = method
        self.path = path
        self.apiVersion = apiVersion
        self.decoding = decoding
    }

    /// Returns a copy with a header field set.
    ///
    /// With `sensitive`, the field is treated like `Authorization`: redacted in logs and observers and dropped when a
    /// redirect leaves the origin.
    public func header(_ name: HTTPField.Name, _ value: String, sensitive: Bool = false) -> Endpoint {
        var copy = self
        var field = HTTPField(name: name, value: value)
        if sensitive { field.indexingStrategy = .disallow }
        copy.headerFields[fields: name] = [field]
        return copy
    }

    /// Returns a copy with a query item added.
    public func query(_ name: String, _ value: String) -> Endpoint {
        var copy = self
        copy.query.append(FormField(name, value))
        return copy
    }

    /// Returns a copy with a JSON body.
    public func body(json: JSONValue) -> Endpoint {
        var copy = self
        copy.body = .data(json.jsonData())
        copy.headerFields[.contentType] = "application/json"
        return copy
    }

    /// Returns a copy with a raw body and its content type.
    public func body(_ body: ClientRequest.Body, contentType: String) -> Endpoint {
        var copy = self
        copy.body = body
        copy.headerFields[.contentType] = contentType
        return copy
    }

    /// Returns a copy accepting these status codes.
    public func acceptingStatus(_ codes: ClosedRange<Int>...) -> Endpoint {
        var copy = self
        copy.validation.acceptableStatusCodes = codes
        return copy
    }

    /// Returns a copy accepting only these content types.
    public func acceptingContentTypes(_ patterns: String...) -> Endpoint {
        var copy = self
        copy.validation.acceptableContentTypes = patterns
        return copy
    }

    /// Returns a copy that decodes error bodies as `type` and attaches them to the thrown error.
    public func errorBody<ErrorBody: Decodable & Sendable>(_ type: ErrorBody.Type) -> Endpoint {
        var copy = self
        copy.validation = copy.validation.decodingErrorBody(as: type)
        return copy
    }

    /// Returns a copy with a cache policy.
    public func cachePolicy(_ policy: CachePolicy) -> Endpoint {
        var copy = self
        copy.cachePolicy = policy
        return copy
    }

    /// Returns a copy with timeouts.
    public func timeouts(_ timeouts: Timeouts) -> Endpoint {
        var copy = self
        copy.timeouts = timeouts
        return copy
    }

    /// Returns a copy whose requests the client's ``RetryPolicy`` retries as `mode` says (for example
    /// ``RetryMode/withIdempotencyKey`` for a `POST` the server deduplicates).
    public func retry(_ mode: RetryMode) -> Endpoint {
        var copy = self
        copy.retryMode = mode
        return copy
    }

    /// Returns a copy whose requests follow `policy` while an identical request is in flight, whatever the client's
    /// ``RequestClient/Configuration/duplicatePolicy``.
    public func duplicatePolicy(_ policy: DuplicatePolicy) -> Endpoint {
        var copy = self
        copy.duplicatePolicy = policy
        return copy
    }

    /// Returns a copy whose requests pass through `decorate` just before the transport (after the client's
    /// middleware): add a fresh token, or throw to refuse the request.
    public func decorated(_ decorate: @escaping @Sendable (inout ClientRequest) async throws -> Void) -> Endpoint {
        var copy = self
        copy.decorators.append(RequestDecorator(decorate))
        return copy
    }

    var descriptor: RequestDescriptor {
        var descriptor = RequestDescriptor(method: method, path: apiVersion?.prefixing(path) ?? path)
        descriptor.headerFields = headerFields
        descriptor.query = query
        descriptor.body = body
        descriptor.validation = validation
        descriptor.timeouts = timeouts
        descriptor.operation = name
        descriptor.cachePolicy = cachePolicy
        descriptor.decorators = decorators
        descriptor.retryMode = retryMode
        descriptor.duplicatePolicy = duplicatePolicy
        return descriptor
    }
}

extension Endpoint where Response: Decodable {
    /// An endpoint whose JSON response decodes into `Response` (use ``EmptyResponse`` for none).
    public init(
        _ method: HTTPRequest.Method,
        _ path: String,
        name: String? = nil,
        apiVersion: APIVersion? = nil,
        as type: Response.Type
    ) {
        self.init(
            name: name ?? "\(method.rawValue) \(apiVersion?.prefixing(path) ?? path)",
            method: method,
            path: path,
            apiVersion: apiVersion,
            decoding: .model(type)
        )
    }
}

extension Endpoint where Response == ResponseContent {
    /// An endpoint whose response decodes by media type.
    public init(_ method: HTTPRequest.Method, _ path: String, name: String? = nil, apiVersion: APIVersion? = nil) {
        self.init(
            name: name ?? "\(method.rawValue) \(apiVersion?.prefixing(path) ?? path)",
            method: method,
            path: path,
            apiVersion: apiVersion,
            decoding: .content
        )
    }
}
