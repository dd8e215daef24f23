import FleetModels
import HTTPTypes
import Hummingbird

/// Refuses writes (any method but GET and HEAD) without `Authorization: Bearer <token>`; reads stay open.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method != .get && request.method != .head {
            guard let header = request.headers[.authorization] else {
                throw HTTPProblem(
                    401,
                    type: ProblemType.unauthorized,
                    title: "Unauthorized",
                    detail: "writes need Authorization: Bearer <token>"
                )
            }
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer", Self.constantTimeEqual(String(parts[1]), token)
            else {
                throw HTTPProblem(
                    401,
                    type: ProblemType.unauthorized,
                    title: "Unauthorized",
                    detail: "the bearer token is not the daemon's token"
                )
            }
        }
        return try await next(request, context)
    }

    /// Compares without returning early on the first differing byte, so timing does not leak the token.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0 && left.count == right.count
    }
}
