import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File system errors in a few plain words, such as `permission denied`, rather than Foundation's
/// `Error Domain=NSCocoaErrorDomain Code=513 …`.
enum FileProblem {
    /// The system's words for the POSIX error under `error` when there is one, else its localized description.
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))).lowercased() }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code))).lowercased()
        }
        return error.localizedDescription
    }
}
