import Foundation
import HTTPTypes
import ModelKit

/// What a decoder gets: the collected body with the response head and the client's decoding settings.
struct DecodingInput: Sendable {
    var status: Int
    var contentType: String?
    var data: Data
    var method: HTTPRequest.Method
    let settings: ReadingSettings

    var registry: DecoderRegistry { settings.decoders }
    var makeDecoder: (@Sendable () -> JSONDecoder)? { settings.makeJSONDecoder }

    /// Whether this response carries no body by definition or in fact.
    var hasNoBody: Bool {
        data.isEmpty || method == .head || status == 204 || status == 205 || status == 304 || status < 200
    }
}

/// Turns a collected response body into a value.
struct ResponseDecoding<Value: Sendable>: Sendable {
    let decode: @Sendable (DecodingInput) throws(RequestKitError) -> Value
    /// The `Accept` value a request decoded this way sends by default.
    var accept: String?

    init(
        accept: String? = DefaultHeaderFields.any,
        decode: @escaping @Sendable (DecodingInput) throws(RequestKitError) -> Value
    ) {
        self.accept = accept
        self.decode = decode
    }
}

extension ResponseDecoding where Value == ResponseContent {
    /// Decodes by media type through the registry.
    static var content: ResponseDecoding<ResponseContent> {
        ResponseDecoding { input throws(RequestKitError) in
            if input.hasNoBody { return .empty }
            do {
                return try input.registry.decode(input.data, contentType: input.contentType)
            } catch let error as RequestKitError {
                throw error
            } catch {
                throw RequestKitError(
                    .decodingFailed,
                    subject: input.contentType ?? "no content type",
                    reason: "the body does not decode as its content type",
                    status: input.status,
                    underlying: error
                )
            }
        }
    }
}

extension ResponseDecoding where Value == Data {
    /// Returns the body bytes as they are.
    static var data: ResponseDecoding<Data> {
        ResponseDecoding { input in input.data }
    }
}

extension ResponseDecoding {
    /// Decodes a JSON body into a model (or an array of models).
    static func model(_ type: Value.Type) -> ResponseDecoding<Value> where Value: Decodable {
        ResponseDecoding(accept: DefaultHeaderFields.json) { input throws(RequestKitError) in
            if Value.self == EmptyResponse.self, let empty = EmptyResponse() as? Value {
                return empty
            }
            if input.hasNoBody {
                throw RequestKitError(
                    .decodingFailed,
                    subject: "\(Value.self)",
                    reason: "the response has no body",
                    status: input.status
                )
            }
            guard let contentType = input.contentType,
                MediaTypeName.isJSON(essence: MediaTypeName.essence(of: contentType))
            else {
                throw RequestKitError(
                    .unacceptableContentType,
                    subject: input.contentType ?? "no content type",
                    reason: "a \(Value.self) is decoded from JSON",
                    status: input.status
                )
            }
            do {
                if let makeDecoder = input.makeDecoder {
                    return try makeDecoder().decode(Value.self, from: input.data)
                }
                return try ModelCoding.decode(Value.self, from: input.data)
            } catch let error as ModelDecodingError {
                throw RequestKitError(
                    .decodingFailed,
                    subject: "\(Value.self)",
                    reason: error.description,
                    status: input.status,
                    underlying: error
                )
            } catch {
                throw RequestKitError(
                    .decodingFailed,
                    subject: "\(Value.self)",
                    reason: DecodingErrorPath.describe(error),
                    status: input.status,
                    underlying: error
                )
            }
        }
    }
}
