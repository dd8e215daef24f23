import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A loopback port that refuses connections for the rest of the process: a socket of its own is bound to it and
/// never listens (the kernel answers a connection attempt with a reset), and it is never closed, so no other test's
/// server can be given the port meanwhile. A port a stopped server released can be handed to the next server a
/// concurrent test starts; this one cannot.
public func closedLoopbackPort() throws -> Int {
    let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
        }
    }
    guard bound else {
        let code = errno
        close(socket)
        throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
