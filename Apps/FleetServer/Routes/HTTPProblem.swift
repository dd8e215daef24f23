import FleetModels
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ModelKit
import NIOCore

/// An error a route throws to answer with a problem body; ``ProblemMiddleware`` writes it.
struct HTTPProblem: Error {
    var problem: Problem
    var headers: HTTPFields = [:]

    init(_ problem: Problem, headers: HTTPFields = [:]) {
        self.problem = problem
        self.headers = headers
    }

    init(_ status: Int, type: String, title: String, detail: String, errors: [Problem.FieldError]? = nil) {
        problem = Problem(type: type, title: title, status: status, detail: detail, errors: errors)
    }

    init(_ error: FleetError) {
        problem = error.problem
    }
}

/// Turns every error a route throws, and every request no route matches, into an `application/problem+json`
/// response, so a client never has to parse an empty or HTML error body.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The routes, to tell a path served with other methods (405 with `Allow`) from an unknown path (404).
    let registry: OperationRegistry

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPProblem {
            return Self.response(error.problem, headers: error.headers)
        } catch let error as FleetError {
            if error.code == .storeFailure {
                context.logger.error("store failure", metadata: ["fleetd.error": "\(error.detail)"])
            }
            return Self.response(error.problem)
        } catch let error as any HTTPResponseError {
            let status = Int(error.status.code)
            let problem: Problem
            switch error.status {
            case .notFound:
                let allowed = registry.methods(serving: request.uri.path)
                if !allowed.isEmpty {
                    var headers = HTTPFields()
                    headers[.allow] = allowed.joined(separator: ", ")
                    return Self.response(
                        Problem(
                            type: ProblemType.methodNotAllowed,
                            title: "Method not allowed",
                            status: 405,
                            detail:
                                "\(request.method) is not allowed on \(request.uri.path); allowed: \(allowed.joined(separator: ", "))"
                        ),
                        headers: headers
                    )
                }
                problem = Problem(
                    type: ProblemType.notFound,
                    title: "Not found",
                    status: status,
                    detail: "no route for \(request.method) \(request.uri.path)"
                )
            case .contentTooLarge:
                problem = Problem(
                    type: ProblemType.tooLarge,
                    title: "Body too large",
                    status: status,
                    detail: "the request body is larger than the daemon accepts"
                )
            case .methodNotAllowed:
                problem = Problem(
                    title: "Method not allowed",
                    status: status,
                    detail: "\(request.method) is not allowed on \(request.uri.path)"
                )
            default:
                problem = Problem(title: error.status.reasonPhrase, status: status)
            }
            return Self.response(problem)
        } catch {
            context.logger.error("unexpected error", metadata: ["fleetd.error": "\(String(reflecting: error))"])
            return Self.response(
                Problem(title: "Internal error", status: 500, detail: "the daemon failed; see its log")
            )
        }
    }

    static func response(_ problem: Problem, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = Problem.mediaType
        if problem.status == 401 {
            fields[.wwwAuthenticate] = #"Bearer realm="fleetd""#
        }
        let data = (try? JSONCoding.encoder.encode(problem)) ?? Data(#"{"title":"Internal error","status":500}"#.utf8)
        return Response(
            status: HTTPResponse.Status(code: problem.status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// The JSON settings of every response: ModelKit's model coding (sorted keys, ISO 8601 dates). Vehicles and pages
/// are streamed by their `writeJSON(to:)` (same bytes, a fraction of `JSONEncoder`'s cost).
enum JSONCoding {
    static func response(
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:],
        capacity: Int = 512,
        _ write: (inout JSONStreamWriter) -> Void
    ) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(
            status: status,
            headers: fields,
            body: ResponseBody(byteBuffer: bytes(capacity: capacity, write))
        )
    }

    /// The bytes `write` writes.
    static func bytes(capacity: Int = 512, _ write: (inout JSONStreamWriter) -> Void) -> ByteBuffer {
        var writer = JSONStreamWriter(capacity: capacity)
        write(&writer)
        return ByteBuffer(bytes: writer.bytes)
    }

    /// `Content-Type: application/json`, plus `eTag` when given, and with `revalidate`, `Cache-Control: max-age=0`:
    /// an answer that changes with every write may be stored by a client, is stale at once and so revalidated before
    /// reuse, and may still stand in for the daemon when the client is offline (which `no-cache` would forbid).
    static func headers(eTag: String? = nil, revalidate: Bool = false) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        if let eTag { fields[.eTag] = eTag }
        if revalidate { fields[.cacheControl] = "max-age=0" }
        return fields
    }

    static let encoder = ModelCoding.makeEncoder()

    static func response(
        _ value: some Encodable,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) throws -> Response {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw HTTPProblem(
                500,
                type: "about:blank",
                title: "Internal error",
                detail: "could not encode the response"
            )
        }
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
