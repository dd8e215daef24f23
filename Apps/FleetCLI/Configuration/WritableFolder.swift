import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a folder fleet writes to (its configuration folder, its data folder) cannot be written, said for a person:
/// what is in the way and what to do about it, in one sentence.
struct WritableFolder: Sendable {
    /// The folder.
    let url: URL
    /// What it is to fleet: `configuration folder`, `data folder`.
    let role: String
    /// The variable that moves it: `FLEET_CONFIG_DIR`, `FLEET_DATA_DIR`.
    let variable: String

    /// The data folder: offline copies and the HTTP cache.
    static func data(_ environment: [String: String]) -> WritableFolder {
        WritableFolder(url: FleetPaths.dataFolder(environment), role: "data folder", variable: "FLEET_DATA_DIR")
    }

    /// What keeps fleet from writing into the folder (creating it first when missing), or `nil` when nothing
    /// visible does: the folder is a file, is read-only, or cannot be created because of a file or a read-only
    /// folder above it.
    func problem() -> String? {
        let path = url.standardizedFileURL.path
        let elsewhere = "or set \(variable) to a folder you can write"
        switch Self.kind(of: path) {
        case .folder:
            guard access(path, W_OK | X_OK) != 0 else { return nil }
            return "fleet's \(role) \(path) is read-only to you: make it writable (chmod u+w \(path)), \(elsewhere)"
        case .file:
            return "fleet's \(role) \(path) is a file, not a folder: move the file away, \(elsewhere)"
        case .missing:
            var ancestor = (path as NSString).deletingLastPathComponent
            while Self.kind(of: ancestor) == .missing, ancestor != "/" {
                ancestor = (ancestor as NSString).deletingLastPathComponent
            }
            switch Self.kind(of: ancestor) {
            case .file:
                return "fleet's \(role) \(path) cannot be created: \(ancestor) is a file, not a folder; \(elsewhere)"
            case .folder where access(ancestor, W_OK | X_OK) != 0:
                return "fleet's \(role) \(path) cannot be created: \(ancestor) is read-only to you; create the "
                    + "folder with write access for you, \(elsewhere)"
            default:
                return nil
            }
        }
    }

    private enum Kind { case folder, file, missing }

    private static func kind(of path: String) -> Kind {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .missing }
        return isDirectory.boolValue ? .folder : .file
    }
}
