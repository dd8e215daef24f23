/// The response type of operations whose success has no body (`204 No Content`, a `DELETE`).
///
/// Decoding into `EmptyResponse` accepts an empty body and ignores a non-empty one.
public struct EmptyResponse: Decodable, Sendable, Hashable {
    /// Creates the empty value.
    public init() {}

    public init(from decoder: any Decoder) throws {}
}
