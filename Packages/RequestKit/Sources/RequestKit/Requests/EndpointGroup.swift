public import HTTPTypes
public import ModelKit

/// A namespace of endpoints for one resource of one API version, such as `FleetAPI.V2.Vehicles`.
///
/// Conforming types name the version and the resource's path once; ``endpoint(_:_:name:as:)`` builds endpoints
/// under them.
public protocol EndpointGroup {
    /// The API version of every endpoint in the group, or `nil` for an unversioned API.
    static var apiVersion: APIVersion? { get }
    /// The resource's path under the version, such as `vehicles`.
    static var resourcePath: String { get }
    /// Header fields sent with every endpoint of the group, such as a versioned `Accept`; none by default.
    static var headerFields: HTTPFields { get }
}

extension EndpointGroup {
    /// No extra header fields.
    public static var headerFields: HTTPFields { [:] }

    /// An endpoint at `subpath` under the resource, decoding a JSON response into `type`.
    public static func endpoint<Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method,
        _ subpath: String = "",
        name: String,
        as type: Response.Type
    ) -> Endpoint<Response> {
        var endpoint = Endpoint(method, joined(subpath), name: name, apiVersion: apiVersion, as: type)
        endpoint.headerFields = headerFields
        return endpoint
    }

    /// An endpoint at `subpath` under the resource, decoding by media type.
    public static func endpoint(
        _ method: HTTPRequest.Method,
        _ subpath: String = "",
        name: String
    ) -> Endpoint<
        ResponseContent
    > {
        var endpoint = Endpoint(method, joined(subpath), name: name, apiVersion: apiVersion)
        endpoint.headerFields = headerFields
        return endpoint
    }

    private static func joined(_ subpath: String) -> String {
        var sub = Substring(subpath)
        while sub.first == "/" { sub = sub.dropFirst() }
        return sub.isEmpty ? resourcePath : "\(resourcePath)/\(sub)"
    }
}
