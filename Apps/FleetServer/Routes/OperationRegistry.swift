import HTTPTypes
import Hummingbird
import Synchronization

/// One operation the router serves: a method and a path template in OpenAPI's spelling (`/v2/vehicles/{id}`).
public struct FleetOperation: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP method, upper case.
    public let method: String
    /// The path template.
    public let path: String

    public var description: String { "\(method) \(path)" }
}

/// Registers routes and remembers each as an OpenAPI-style operation.
final class OperationRegistry: Sendable {
    private let registered = Mutex<[FleetOperation]>([])

    var operations: [FleetOperation] { registered.withLock { $0 } }

    /// The methods registered for the templates `path` matches (a `{name}` segment matches any one segment); empty
    /// when no template matches.
    func methods(serving path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods: Set<String> = []
        for operation in operations {
            let template = operation.path.split(separator: "/", omittingEmptySubsequences: true)
            guard template.count == segments.count,
                zip(template, segments).allSatisfy({ $0.hasPrefix("{") || $0 == $1 })
            else { continue }
            methods.insert(operation.method)
        }
        return methods.sorted()
    }

    func add(
        _ routes: some RouterMethods<BasicRequestContext>,
        _ method: HTTPRequest.Method,
        _ path: String,
        prefix: String = "",
        handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) {
        routes.on(RouterPath(path), method: method, use: handler)
        let template = (prefix + path).split(separator: "/").map {
            $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
        }
        let path = "/" + template.joined(separator: "/")
        registered.withLock {
            $0.append(FleetOperation(method: method.rawValue, path: path))
            // The router answers HEAD wherever GET is served.
            if method == .get { $0.append(FleetOperation(method: "HEAD", path: path)) }
        }
    }
}
