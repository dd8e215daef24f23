/// The version of RequestKit, as it names itself in the default `User-Agent` header field.
///
/// Every request a ``RequestClient`` prepares carries `User-Agent: RequestKit/<version>` unless the client's
/// ``RequestClient/Configuration/headerFields`` or the request itself sets one.
public enum RequestKitVersion {
    /// The version number, such as `0.1.0`.
    public static let current = "0.1.0"

    /// The default `User-Agent` value: `RequestKit/<version>`.
    public static let userAgent = "RequestKit/" + current
}
