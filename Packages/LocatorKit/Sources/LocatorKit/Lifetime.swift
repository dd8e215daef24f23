/// How long a factory-made service lives and who shares it.
///
/// | lifetime | instances |
/// |---|---|
/// | ``eager`` | one, made at registration; a failure is kept and rethrown by every resolve |
/// | ``lazy`` | one, made by the first resolve; a failure is retried by the next resolve |
/// | ``transient`` | a new one on every resolve |
/// | ``weak`` | one while someone else holds it, made again after it is released |
/// | ``graph`` | one per root resolve, shared by everything that root resolve builds |
/// | ``scoped(_:)`` | one until ``Locator/resetScope(_:)`` resets the named scope |
///
/// Instances registered with ``Locator/register(_:as:name:)`` are held strongly; see also
/// ``Locator/register(weak:as:name:)`` and ``Locator/register(weakHandleTo:as:name:)``.
public struct Lifetime: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case instance, weakInstance, eager, lazy, transient, weak, graph
        case scoped(String)
    }

    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// One instance, made when it is registered.
    public static let eager = Lifetime(.eager)
    /// One instance, made on first resolve; exactly one creation however many callers race for it.
    public static let lazy = Lifetime(.lazy)
    /// A new instance on every resolve.
    public static let transient = Lifetime(.transient)
    /// One instance while someone else holds it; made again after it is released. Needs a class instance.
    public static let weak = Lifetime(.weak)
    /// One instance per root resolve.
    public static let graph = Lifetime(.graph)

    /// One instance per named scope, dropped by ``Locator/resetScope(_:)``.
    public static func scoped(_ name: String) -> Lifetime {
        Lifetime(.scoped(name))
    }

    /// The lifetime's name, such as `lazy` or `scoped(session)`.
    public var description: String {
        switch kind {
        case .instance: "instance"
        case .weakInstance: "weak instance"
        case .eager: "eager"
        case .lazy: "lazy"
        case .transient: "transient"
        case .weak: "weak"
        case .graph: "graph"
        case .scoped(let name): "scoped(\(name))"
        }
    }

    var isShared: Bool {
        switch kind {
        case .transient, .graph: false
        default: true
        }
    }
}
