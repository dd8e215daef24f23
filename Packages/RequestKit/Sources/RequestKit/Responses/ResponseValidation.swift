import Foundation
import ModelKit

/// What a response must look like to count as a success: its status code and, optionally, its content type.
///
/// A response that fails validation throws ``RequestKitError/Code/unacceptableStatus`` or
/// ``RequestKitError/Code/unacceptableContentType``. When the validation names an error body type and the server
/// sent a body that decodes as that type, the value is attached as ``RequestKitError/errorBody``.
public struct ResponseValidation: Sendable {
    /// Status codes that count as success.
    public var acceptableStatusCodes: [ClosedRange<Int>] {
        get { statusCodes ?? Self.successCodes }
        set { statusCodes = newValue }
    }
    /// The status codes, or `nil` for ``successCodes``: the default validation then holds no array at all, so
    /// copying it (every request does, on every core) counts no shared reference.
    private var statusCodes: [ClosedRange<Int>]?
    /// Media type patterns (`application/json`, `text/*`) the body must match, or `nil` for any.
    public var acceptableContentTypes: [String]?
    var errorBodyDecoder: (@Sendable (Data) -> (any Sendable)?)?

    /// Creates a validation.
    public init(
        acceptableStatusCodes: [ClosedRange<Int>] = ResponseValidation.successCodes,
        acceptableContentTypes: [String]? = nil
    ) {
        // The shared default array is recognised by its storage, so that it is not held.
        let isDefault = acceptableStatusCodes.withUnsafeBufferPointer { given in
            Self.successCodes.withUnsafeBufferPointer { given.baseAddress == $0.baseAddress }
        }
        self.statusCodes = isDefault ? nil : acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Any 2xx status and any content type, made without looking at ``successCodes``.
    static var standard: ResponseValidation { ResponseValidation(statusCodes: nil) }

    private init(statusCodes: [ClosedRange<Int>]?) {
        self.statusCodes = statusCodes
        self.acceptableContentTypes = nil
    }

    /// `[200...299]`, made once: every request carries a validation, and a literal default argument allocated a new
    /// array for each.
    public static let successCodes: [ClosedRange<Int>] = [200...299]

    /// Accepts any 2xx status and any content type.
    public static var successStatus: ResponseValidation { .standard }

    /// Returns a copy that decodes error bodies (sent with an unacceptable status) as `type`.
    public func decodingErrorBody<ErrorBody: Decodable & Sendable>(as type: ErrorBody.Type) -> ResponseValidation {
        var copy = self
        copy.errorBodyDecoder = { data in try? ModelCoding.decode(ErrorBody.self, from: data) }
        return copy
    }

    func accepts(status: Int) -> Bool {
        guard let statusCodes else { return (200...299).contains(status) }
        return statusCodes.contains { $0.contains(status) }
    }

    func accepts(contentType: String?) -> Bool {
        guard let patterns = acceptableContentTypes else { return true }
        guard let contentType, let name = MediaTypeName(contentType) else { return false }
        return patterns.contains { name.matches($0) }
    }
}
