import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a file beside the database, held while a daemon runs; the kernel drops it when the
/// process ends, however it ends.
final class DatabaseLock {
    private var descriptor: Int32

    init(path: String) throws(FleetError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FleetError(.unavailable, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason =
                errno == EWOULDBLOCK
                ? "another fleetd is running on this database; stop it, or give this one another data directory with "
                    + "--data-dir (or FLEETD_DATA_DIR)"
                : String(cString: strerror(errno))
            close(descriptor)
            throw FleetError(.unavailable, "cannot lock \(path): \(reason)")
        }
        self.descriptor = descriptor
    }

    /// Unlocks; a second call does nothing.
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }
}
