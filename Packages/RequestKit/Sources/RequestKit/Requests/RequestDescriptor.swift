import Foundation
import HTTPTypes
import ModelKit

/// Everything the one-call API, the builder and endpoints know about a request before it is sent.
struct RequestDescriptor: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var query: [FormField] = []
    var headerFields: HTTPFields = [:]
    var body: ClientRequest.Body?
    var validation = ResponseValidation.standard
    var timeouts: Timeouts?
    var operation: String?
    var cachePolicy = CachePolicy.useProtocol
    var retryMode = RetryMode.automatic
    var duplicatePolicy: DuplicatePolicy?
    var decorators: [RequestDecorator] = []
    /// The `Accept` value sent when neither the request nor the client sets one (`nil`: none).
    var defaultAccept: String?

    init(method: HTTPRequest.Method, path: String) {
        self.method = method
        self.path = path
    }

    /// Returns a copy whose default `Accept` is `accept`, unless one is already chosen.
    func expecting(_ accept: String?) -> RequestDescriptor {
        guard defaultAccept == nil else { return self }
        var copy = self
        copy.defaultAccept = accept
        return copy
    }

    /// Sets the default `Accept` to `accept`, unless one is already chosen.
    mutating func expect(_ accept: String?) {
        if defaultAccept == nil { defaultAccept = accept }
    }

    /// Sends parameters as the query for methods without a body and as a JSON or form body otherwise.
    mutating func apply(_ parameters: RequestParameters, encoding: BodyEncoding = .json) {
        guard !parameters.isEmpty else { return }
        if method.hasRequestBody {
            setBody(parameters, encoding: encoding)
        } else {
            query += parameters.formFields
        }
    }

    mutating func setBody(_ parameters: RequestParameters, encoding: BodyEncoding) {
        if encoding.isJSON {
            body = .data(parameters.jsonObject.jsonData())
            headerFields[.contentType] = "application/json"
        } else {
            body = .data(Data(FormField.encode(parameters.formFields).utf8))
            headerFields[.contentType] = "application/x-www-form-urlencoded"
        }
    }

    func url(in environment: ServiceEnvironment) throws(RequestKitError) -> URL {
        let base = try environment.url(for: path)
        guard !query.isEmpty else { return base }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw .invalidPath(path, reason: "it does not form a valid URL")
        }
        let encoded = FormField.encode(query)
        components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + encoded } ?? encoded
        guard let url = components.url else {
            throw .invalidPath(path, reason: "the query does not form a valid URL")
        }
        return url
    }

    /// Concatenated rather than interpolated: short names such as `GET vehicles/7` stay small strings, which need no
    /// allocation.
    var operationName: String { operation ?? method.rawValue + " " + path }
}

extension HTTPRequest.Method {
    /// Whether requests with this method carry parameters in a body (POST, PUT, PATCH).
    var hasRequestBody: Bool {
        self == .post || self == .put || self == .patch
    }
}
