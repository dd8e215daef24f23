import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to a loopback port, for requests that HTTP libraries would refuse to send or would
/// hide the answer to: truncated bodies, malformed heads, half-closed connections.
final class RawConnection {
    private let descriptor: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure(description: "connect() failed: errno \(errno)")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Runs `body`, which blocks on sockets, on a thread of its own rather than the cooperative pool: a test that
    /// blocks a pool thread while the daemon's handler needs one can starve the daemon on a small machine.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard result > 0 else { throw Failure(description: "write() failed: errno \(errno)") }
            sent += result
        }
    }

    /// Tells the server that nothing more comes, keeping the connection open to read its answer.
    func finishSending() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// The server's answer: one response (its head and a `Content-Length` body), or whatever arrives until the
    /// server closes the connection, or nothing after 10 seconds of silence.
    func receiveResponse() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !Self.isComplete(received) {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Everything the server sends until it closes the connection (or 10 seconds of silence).
    func receiveUntilClosed() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Hangs up in both directions, without waiting for anything the server sends.
    func hangUp() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }

    /// Whether the server has closed the connection: a read sees the end of the stream (or a reset) within the
    /// receive timeout.
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }
}
