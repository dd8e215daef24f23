/// How body parameters are written into a request body.
public struct BodyEncoding: Sendable, Hashable, CustomStringConvertible {
    private enum Value: String, Sendable, Hashable {
        case json
        case form
    }
    private let value: Value

    /// `application/json` (the default).
    public static let json = BodyEncoding(value: .json)
    /// `application/x-www-form-urlencoded`.
    public static let form = BodyEncoding(value: .form)

    var isJSON: Bool { value == .json }

    public var description: String { value.rawValue }
}
