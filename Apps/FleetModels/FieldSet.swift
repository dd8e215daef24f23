public import ModelKit

/// The JSON member names a request body may carry, so that a server can refuse unknown fields (a misspelt
/// `modelyear` must not be silently ignored on a write) and name each one by its path.
public struct FieldSet: Sendable, Hashable {
    /// Member names allowed at this level.
    public let names: Set<String>
    /// Allowed members of nested objects, by member name.
    public let nested: [String: FieldSet]

    /// A set of allowed names, with the allowed members of nested objects.
    public init(_ names: Set<String>, nested: [String: FieldSet] = [:]) {
        self.names = names.union(nested.keys)
        self.nested = nested
    }

    /// Paths of every member of `value` that this set does not allow (`maintenance.flagged`), in document
    /// order. Values that are not objects have no members and give no paths; type checks are the decoder's job.
    public func unknownPaths(in value: JSONValue, prefix: String = "") -> [String] {
        guard case .object(let object) = value else { return [] }
        var paths: [String] = []
        for (key, member) in object {
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            if !names.contains(key) {
                paths.append(path)
            } else if let child = nested[key] {
                paths.append(contentsOf: child.unknownPaths(in: member, prefix: path))
            }
        }
        return paths
    }
}

/// A request body that names the members it may carry, so a server can refuse any other by path.
public protocol FieldRestricted {
    /// The members this body may carry.
    static var fields: FieldSet { get }
}

extension V1.VehicleInput: FieldRestricted {}
extension V2.VehicleInput: FieldRestricted {}
extension V2.VehiclePatch: FieldRestricted {}
