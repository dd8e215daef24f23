import FleetModels
import Foundation
import HTTPTypes
import Hummingbird
import ModelKit

/// Reads a JSON request body strictly, so that a bad body is refused with a precise problem and writes nothing:
/// wrong media type (415), too large (413), malformed JSON (400, with line and column), not an object or an unknown
/// member (400, with paths), a wrong type or a missing member (400, with the path), a rule broken (422, with
/// every failing path).
enum RequestBodies {
    static func decode<Input: Decodable & Validatable & FieldRestricted>(
        _ type: Input.Type,
        from request: Request,
        maximumBytes: Int
    ) async throws -> Input {
        try checkMediaType(request)
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBytes {
            throw tooLarge(maximumBytes)
        }
        let body = request.body
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: maximumBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge(maximumBytes)
        } catch let error as IncompleteRequestBody where error.timedOut {
            throw HTTPProblem(
                408,
                type: ProblemType.requestTimeout,
                title: "Request timeout",
                detail: "the request body did not arrive within the daemon's body timeout; send it again"
            )
        } catch {
            // The client hung up or broke off its body (a declared length not reached, a chunked body without its
            // last chunk): its request is incomplete, which is its error, not the daemon's.
            throw HTTPProblem(
                400,
                type: ProblemType.malformedBody,
                title: "Incomplete body",
                detail: "the request body ended before it was complete"
            )
        }
        let bytes = Array(buffer.readableBytesView)
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes, maxDepth: 32)
        } catch {
            throw HTTPProblem(
                400,
                type: ProblemType.malformedBody,
                title: "Malformed JSON",
                detail: "the body is not valid JSON: \(error)"
            )
        }
        guard case .object = json else {
            throw HTTPProblem(
                400,
                type: ProblemType.malformedBody,
                title: "Malformed body",
                detail: "the body must be a JSON object"
            )
        }
        let unknown = Input.fields.unknownPaths(in: json)
        if !unknown.isEmpty {
            throw HTTPProblem(
                400,
                type: ProblemType.unknownField,
                title: "Unknown field",
                detail: "the body has members this operation does not take",
                errors: unknown.map { Problem.FieldError(path: $0, message: "unknown field") }
            )
        }
        let input: Input
        do {
            input = try ModelCoding.decode(Input.self, from: Data(bytes))
        } catch let error as ModelDecodingError {
            throw HTTPProblem(
                400,
                type: ProblemType.malformedBody,
                title: "Invalid field",
                detail: "\(error)",
                errors: [Problem.FieldError(path: error.path, message: Self.message(for: error))]
            )
        }
        let failures = input.validationFailures
        if !failures.isEmpty {
            throw HTTPProblem(
                422,
                type: ProblemType.validation,
                title: "Validation failed",
                detail: "\(failures.count) field(s) break a rule",
                errors: failures.map { Problem.FieldError(path: $0.path, message: $0.message) }
            )
        }
        return input
    }

    private static func checkMediaType(_ request: Request) throws {
        guard let contentType = request.headers[.contentType] else {
            throw HTTPProblem(
                415,
                type: ProblemType.unsupportedMediaType,
                title: "Unsupported media type",
                detail: "send the body as application/json"
            )
        }
        let isJSON: Bool
        if let mediaType = try? MIMEType(parsing: contentType) {
            isJSON =
                (mediaType.type == "application"
                    && (mediaType.subtype == "json" || mediaType.subtype.hasSuffix("+json")))
        } else {
            isJSON = false
        }
        guard isJSON else {
            throw HTTPProblem(
                415,
                type: ProblemType.unsupportedMediaType,
                title: "Unsupported media type",
                detail: "send the body as application/json, not \(contentType)"
            )
        }
    }

    private static func tooLarge(_ maximumBytes: Int) -> HTTPProblem {
        HTTPProblem(
            413,
            type: ProblemType.tooLarge,
            title: "Body too large",
            detail: "the body is larger than \(maximumBytes) bytes"
        )
    }

    private static func message(for error: ModelDecodingError) -> String {
        switch error.code {
        case .missingKey: return "is required"
        case .nullValue: return "must not be null"
        case .typeMismatch:
            if let expected = error.expected, let found = error.found { return "expected \(expected), found \(found)" }
            return "has the wrong type"
        default:
            return error.description
        }
    }
}
