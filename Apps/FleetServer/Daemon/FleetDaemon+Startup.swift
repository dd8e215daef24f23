import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FleetDaemon {
    /// What fleetd checks before it creates anything: that it can bind its address, then that its data directory
    /// is usable (creating it when missing), then that no other fleetd runs on its SQLite database. A failure leaves
    /// nothing behind but the directory and says what to change.
    ///
    /// - Throws: ``StartupError``.
    public static func checkStartup(_ configuration: FleetConfiguration) throws(StartupError) {
        try checkPort(host: configuration.host, port: configuration.port)
        try prepareDataDirectory(configuration.dataDirectory)
        if !configuration.isPostgres {
            try checkDatabaseLock(configuration.databasePath)
        }
    }

    /// Takes the database's lock for a moment and lets it go: another fleetd holding it would fail this one later,
    /// after the token and the store were made.
    ///
    /// - Throws: ``StartupError/Code/databaseLocked`` when another process holds it.
    static func checkDatabaseLock(_ databasePath: String) throws(StartupError) {
        do {
            try DatabaseLock(path: databasePath + ".lock").release()
        } catch {
            throw StartupError(.databaseLocked, subject: databasePath, message: error.detail)
        }
    }

    /// Binds `host:port` for a moment, as the server will (`SO_REUSEADDR`), and lets it go. With port 0 the system
    /// picks a free port, so only the host is checked: that it is an address of this machine.
    ///
    /// - Throws: ``StartupError/Code/portUnavailable`` naming the address, with what to do.
    public static func checkPort(host: String, port: Int) throws(StartupError) {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &results)
        guard resolved == 0, let first = results else {
            throw StartupError(
                .portUnavailable,
                subject: address,
                message: "cannot listen on \(address): \(String(cString: gai_strerror(resolved))); "
                    + "give an address of this machine with --host"
            )
        }
        defer { freeaddrinfo(results) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return }  // No socket to try with: let the server report it.
        defer { close(descriptor) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 else { return }
        throw portError(address: address, errno: errno)
    }

    /// The message for a bind that failed with `code`.
    static func portError(address: String, errno code: Int32) -> StartupError {
        let reason =
            switch code {
            case EADDRINUSE: "\(address) is already in use (another fleetd, or another program, listens there)"
            case EACCES: "\(address) needs privileges to bind (ports below 1024)"
            case EADDRNOTAVAIL: "\(address) is not an address of this machine"
            default: "cannot listen on \(address): \(String(cString: strerror(code)))"
            }
        let advice =
            code == EADDRNOTAVAIL
            ? "give another address with --host (or FLEETD_HOST)"
            : "choose another port with --port (or FLEETD_PORT), or --port 0 for any free one"
        return StartupError(.portUnavailable, subject: address, message: "\(reason); \(advice)")
    }

    /// Makes sure `path` is a directory fleetd can write in, creating it (and its parents) when missing.
    ///
    /// - Throws: ``StartupError/Code/dataDirectoryUnusable`` naming the path and why, in one line.
    public static func prepareDataDirectory(_ path: String) throws(StartupError) {
        func unusable(_ why: String) -> StartupError {
            StartupError(
                .dataDirectoryUnusable,
                subject: path,
                message: "cannot use the data directory \(path): \(why); choose another with --data-dir (or "
                    + "FLEETD_DATA_DIR)"
            )
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw unusable("it is a file, not a directory") }
            guard access(path, W_OK | X_OK) == 0 else {
                throw unusable("no permission to write in it (\(String(cString: strerror(errno))))")
            }
            return
        }
        // The nearest ancestor that exists says why the directory cannot be made.
        var ancestor = path
        repeat {
            let parent = (ancestor as NSString).deletingLastPathComponent
            ancestor = parent.isEmpty ? "." : parent
        } while !FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory) && ancestor != "/"
            && ancestor != "."
        if FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw unusable("\(ancestor) is a file, not a directory") }
            guard access(ancestor, W_OK | X_OK) == 0 else {
                throw unusable("no permission to create it in \(ancestor)")
            }
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw unusable("it cannot be created (\(reason))")
        }
    }
}
