import FleetModels
import HTTPTypes
import Hummingbird
import ModelKit

/// Path and query parsing shared by both versions.
enum RouteInput {
    static func vehicleID(_ context: BasicRequestContext) throws -> ModelID<Vehicle> {
        let text = context.parameters.get("id") ?? ""
        do {
            return try ModelID<Vehicle>(parsing: text)
        } catch {
            throw HTTPProblem(
                400,
                type: ProblemType.badQuery,
                title: "Bad vehicle ID",
                detail: "'\(text)' is not a vehicle ID (a UUID)",
                errors: [Problem.FieldError(path: "path.id", message: "must be a UUID")]
            )
        }
    }

    /// The query parameters, refusing names not in `allowed` and repeated names.
    static func query(_ request: Request, allowed: Set<String>) throws -> [String: String] {
        var values: [String: String] = [:]
        var errors: [Problem.FieldError] = []
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            if !allowed.contains(name) {
                errors.append(Problem.FieldError(path: "query.\(name)", message: "unknown parameter"))
            } else if values[name] != nil {
                errors.append(Problem.FieldError(path: "query.\(name)", message: "given more than once"))
            } else {
                values[name] = String(value)
            }
        }
        if !errors.isEmpty {
            throw badQuery(errors)
        }
        return values
    }

    static func badQuery(_ errors: [Problem.FieldError]) -> HTTPProblem {
        HTTPProblem(
            400,
            type: ProblemType.badQuery,
            title: "Bad query parameter",
            detail: "the query string has parameters this operation refuses",
            errors: errors
        )
    }

    static func location(_ version: Int, _ id: ModelID<Vehicle>) -> HTTPFields {
        var fields = HTTPFields()
        fields[.location] = "/v\(version)/vehicles/\(id.uuidString.lowercased())"
        return fields
    }
}
