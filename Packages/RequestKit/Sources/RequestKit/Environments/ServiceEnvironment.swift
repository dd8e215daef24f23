public import Foundation

/// A named place a service lives: a base URL that relative request paths resolve against.
///
/// Requests name paths such as `"vehicles/42"`; the environment in force when the request is sent supplies the
/// scheme, host, port and base path. Switching environments (production, staging, a local daemon) therefore
/// never touches the code that builds requests.
///
/// ```swift
/// let staging = try ServiceEnvironment(name: "staging", baseURL: "https://staging.example.com/api/")
/// let url = try staging.url(for: "vehicles/42")   // https://staging.example.com/api/vehicles/42
/// ```
public struct ServiceEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The environment's name, unique within an environment list (for example `"production"`).
    public var name: String { storage.name }
    /// The base URL. Always absolute, HTTP or HTTPS, and ending in `/` so relative paths append to it.
    public var baseURL: URL { storage.baseURL }

    /// Everything an environment holds, in one object: every request copies its environment a few times, and tasks
    /// on other cores copy the same one, so each reference counted in a copy is a cache line the cores pass back
    /// and forth. With one object a copy counts one reference instead of six.
    private final class Storage: Sendable {
        let name: String
        let baseURL: URL
        /// `baseURL.absoluteString`, kept to build request URLs by appending.
        let baseString: String
        /// URLs already resolved from paths: parsing a URL costs more than all the rest of building a request.
        let resolved = ResolvedURLs()
        /// The origin requests must stay on: lowercased scheme and host, and the port with the scheme's default.
        let originScheme: String
        let originHost: String
        let originPort: Int

        init(name: String, baseURL: URL, originScheme: String, originHost: String, originPort: Int) {
            self.name = name
            self.baseURL = baseURL
            self.baseString = baseURL.absoluteString
            self.originScheme = originScheme
            self.originHost = originHost
            self.originPort = originPort
        }
    }

    private let storage: Storage

    /// Creates an environment, normalising the base URL so that it ends in `/`.
    ///
    /// - Throws: ``RequestKitError/Code/invalidEnvironment`` when the name is empty or the URL is not an absolute
    ///   `http` or `https` URL with a host, or carries a query or fragment.
    public init(name: String, baseURL: URL) throws(RequestKitError) {
        guard !name.isEmpty else {
            throw .invalidEnvironment(name: name, reason: "the name is empty")
        }
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidEnvironment(name: name, reason: "the base URL must use http or https")
        }
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
            let host = components.host, !host.isEmpty
        else {
            throw .invalidEnvironment(name: name, reason: "the base URL has no host")
        }
        guard components.query == nil, components.fragment == nil else {
            throw .invalidEnvironment(name: name, reason: "the base URL must not carry a query or fragment")
        }
        if !components.path.hasSuffix("/") {
            components.path += "/"
        }
        guard let normalised = components.url else {
            throw .invalidEnvironment(name: name, reason: "the base URL cannot be normalised")
        }
        self.storage = Storage(
            name: name,
            baseURL: normalised,
            originScheme: scheme,
            originHost: host.lowercased(),
            originPort: components.port ?? (scheme == "https" ? 443 : 80)
        )
    }

    /// Creates an environment from a base URL string.
    ///
    /// - Throws: ``RequestKitError/Code/invalidEnvironment`` when the string is not a valid base URL.
    public init(name: String, baseURL: String) throws(RequestKitError) {
        guard let url = URL(string: baseURL) else {
            throw .invalidEnvironment(name: name, reason: "the base URL does not parse")
        }
        try self.init(name: name, baseURL: url)
    }

    /// Resolves a request path against the base URL.
    ///
    /// A path without a leading `/` appends to the base path; a leading `/` is treated the same way, so
    /// `"/vehicles"` and `"vehicles"` name the same resource under a base path such as `/api/`. Anything that could
    /// name another host is refused: absolute URLs (`https://other/x`), network-path references (`//other/x`),
    /// a first segment with a colon (`other:8080/x`, `http:other/x`, which URL parsers read as a scheme) and
    /// backslashes (which some parsers read as slashes). A request that names another host must say so explicitly,
    /// through ``PublicResourceClient``, rather than through a path. A first segment that really holds a colon is
    /// written after `./`, as RFC 3986 asks: `"./items:batchGet"`.
    ///
    /// - Throws: ``RequestKitError/Code/invalidPath`` when the path could leave the environment's origin or does
    ///   not form a valid URL.
    public func url(for path: String) throws(RequestKitError) -> URL {
        // One scan of the UTF-8 bytes does every check: `String.contains(_:)` with a string argument goes through
        // `NSString` on Linux, and separate scans showed up in profiles of every request.
        let bytes = path.utf8
        var start = bytes.startIndex
        var plain = true
        var inFirstSegment = true
        var colonThenSlashes = 0
        var position = 0
        for byte in bytes {
            defer { position += 1 }
            switch byte {
            case UInt8(ascii: "/"):
                if position == 0 {
                    start = bytes.index(after: start)
                    continue
                }
                if position == 1, start != bytes.startIndex {
                    throw .invalidPath(path, reason: "a path starting with // names a host")
                }
                inFirstSegment = false
                if colonThenSlashes > 0 {
                    colonThenSlashes += 1
                    if colonThenSlashes == 3 { throw .invalidPath(path, reason: "an absolute URL is not a path") }
                }
                continue
            case UInt8(ascii: ":"):
                if inFirstSegment {
                    throw .invalidPath(path, reason: "a colon in the first segment would be read as a scheme")
                }
                plain = false
                colonThenSlashes = 1
                continue
            case UInt8(ascii: "\\"):
                throw .invalidPath(path, reason: "a backslash is not a path separator")
            case UInt8(ascii: "?"), UInt8(ascii: "#"):
                inFirstSegment = false
            case UInt8(ascii: "."):
                plain = false
            default:
                break
            }
            colonThenSlashes = 0
        }
        // `start` follows only ASCII slashes, so it is a character boundary.
        let relative = path[start...]
        // Appending to the base string is what relative resolution does for plain paths, at a fraction of the
        // cost; dot segments and colons take the general route.
        if plain {
            if let url = storage.resolved.url(for: relative) { return url }
            if let url = URL(string: storage.baseString + relative) {
                storage.resolved.store(url, for: relative)
                return url
            }
        }
        guard let url = URL(string: String(relative), relativeTo: baseURL)?.absoluteURL else {
            throw .invalidPath(path, reason: "it does not form a valid URL")
        }
        guard contains(url) else {
            throw .invalidPath(path, reason: "it resolves outside the environment's origin")
        }
        return url
    }

    /// Whether `url` is on this environment's origin: the same scheme, host and port.
    ///
    /// The client sends nothing that fails this check, whatever path, middleware or decorator produced the URL.
    public func contains(_ url: URL) -> Bool {
        let storage = self.storage
        guard let scheme = url.scheme, scheme.lowercased() == storage.originScheme,
            let host = url.host, host.lowercased() == storage.originHost
        else { return false }
        return (url.port ?? (storage.originScheme == "https" ? 443 : 80)) == storage.originPort
    }

    /// Refuses `request` with ``RequestKitError/Code/invalidPath`` (saying `reason`) unless its URL is on this
    /// environment's origin.
    func requireOrigin(of request: ClientRequest, reason: @autoclosure () -> String) throws(RequestKitError) {
        guard !contains(request.url) else { return }
        var error = RequestKitError.invalidPath(request.url.absoluteString, reason: reason())
        error.operation = request.operation
        error.url = request.url
        throw error
    }

    public var description: String { "\(name) (\(baseURL.absoluteString))" }

    public static func == (lhs: ServiceEnvironment, rhs: ServiceEnvironment) -> Bool {
        lhs.storage === rhs.storage || (lhs.name == rhs.name && lhs.baseURL == rhs.baseURL)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(baseURL)
    }
}
