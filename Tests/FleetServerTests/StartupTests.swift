import FleetServer
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// fleetd's start: a taken port and an unusable data directory are one line each, exit 1, and leave nothing
/// behind.
@Suite("Startup")
struct StartupTests {
    /// A socket listening on a free loopback port, closed when the value goes away.
    final class Listener {
        let descriptor: Int32
        let port: Int

        init() throws {
            #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(descriptor, address, length) == 0 && listen(descriptor, 4) == 0
                        && getsockname(descriptor, address, &length) == 0
                }
            }
            try #require(bound, "cannot listen on a loopback port: errno \(errno)")
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }
    }

    static func temporaryPath(_ name: String = "fleetd-startup") -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
    }

    @Test("a taken port is named, with --port as the way out, before the data directory is created")
    func portInUse() async throws {
        let listener = try Listener()
        let dataDirectory = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let errors = LogSink.memory()
        let code = await FleetDaemon.main(
            arguments: ["--port", String(listener.port), "--data-dir", dataDirectory],
            environment: [:],
            errors: errors
        )
        #expect(code == 1)
        #expect(
            errors.written == [
                "fleetd: 127.0.0.1:\(listener.port) is already in use (another fleetd, or another program, listens "
                    + "there); choose another port with --port (or FLEETD_PORT), or --port 0 for any free one\n"
            ]
        )
        #expect(!FileManager.default.fileExists(atPath: dataDirectory), "nothing is created")

        let thrown = #expect(throws: StartupError.self) {
            try FleetDaemon.checkPort(host: "127.0.0.1", port: listener.port)
        }
        #expect(thrown?.code == .portUnavailable)
        #expect(thrown?.subject == "127.0.0.1:\(listener.port)")
        try FleetDaemon.checkPort(host: "127.0.0.1", port: 0)
    }

    @Test("a data directory that is a file, or below a file, is one line naming the path and why")
    func dataDirectoryIsAFile() async throws {
        let file = Self.temporaryPath("fleetd-file")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))

        for (path, why) in [
            (file, "it is a file, not a directory"), (file + "/data/fleetd", "\(file) is a file, not a directory"),
        ] {
            let errors = LogSink.memory()
            let code = await FleetDaemon.main(
                arguments: ["--port", "0", "--data-dir", path],
                environment: [:],
                errors: errors
            )
            #expect(code == 1)
            #expect(
                errors.written == [
                    "fleetd: cannot use the data directory \(path): \(why); choose another with --data-dir (or "
                        + "FLEETD_DATA_DIR)\n"
                ]
            )
            // The library refuses it the same way.
            var configuration = FleetConfiguration(environment: [:])
            configuration.dataDirectory = path
            let thrown = #expect(throws: StartupError.self) {
                try FleetDaemon(configuration: configuration, logger: Logger(label: "test"), token: "a-test-token")
            }
            #expect(thrown?.code == .dataDirectoryUnusable)
            #expect(thrown?.subject == path)
        }
    }

    @Test("a data directory without write permission is named", .enabled(if: geteuid() != 0, "root may write anywhere"))
    func dataDirectoryWithoutPermission() throws {
        let parent = Self.temporaryPath("fleetd-readonly")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        defer {
            chmod(parent, 0o700)
            try? FileManager.default.removeItem(atPath: parent)
        }
        chmod(parent, 0o500)
        let inside = parent + "/fleetd"
        let missing = #expect(throws: StartupError.self) { try FleetDaemon.prepareDataDirectory(inside) }
        #expect(missing?.message.contains("no permission to create it in \(parent)") == true)
        let existing = #expect(throws: StartupError.self) { try FleetDaemon.prepareDataDirectory(parent) }
        #expect(existing?.message.contains("no permission to write in it") == true)
    }

    @Test("a missing data directory is created with its parents")
    func dataDirectoryIsCreated() throws {
        let root = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FleetDaemon.prepareDataDirectory(root + "/a/b")
        var isDirectory: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: root + "/a/b", isDirectory: &isDirectory) && isDirectory.boolValue
        )
    }
}
