import ModelKit

extension APIVersion {
    /// `path` under this version's path segment: `vehicles/7` becomes `v2/vehicles/7`.
    func prefixing(_ path: String) -> String {
        var relative = Substring(path)
        while relative.first == "/" { relative = relative.dropFirst() }
        return relative.isEmpty ? description : "\(description)/\(relative)"
    }
}
