import CRequestKitZlib
import Foundation

/// Decompresses a `gzip` or `deflate` content coding chunk by chunk through the system zlib.
///
/// `gzip` may hold several members one after another (RFC 1952 allows it, and `cat a.gz b.gz` makes one); each is
/// decoded in turn. `deflate` is the zlib format of RFC 1950, but some servers send bare RFC 1951 data under that
/// name, as browsers accept; the first two bytes tell the two apart.
final class Inflater: ContentDecoder {
    enum Format {
        case gzip
        case deflate
    }

    /// The zlib state; allocated once so its address never moves (zlib keeps a pointer back to it).
    private let stream: UnsafeMutablePointer<z_stream>
    private let format: Format
    private var initialized = false
    /// Whether the current member ended and nothing of a next one arrived yet.
    private var atMemberEnd = false
    private(set) var isFinished = false

    init(format: Format) {
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if initialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts zlib once the first bytes tell which framing the body uses.
    private func start(with input: UnsafeRawBufferPointer) throws(ContentDecodingFailure) {
        let windowBits: Int32
        switch format {
        case .gzip:
            windowBits = 15 + 16
        case .deflate:
            // A zlib header is two bytes whose big-endian value is a multiple of 31, with method 8 (deflate).
            let looksLikeZlib =
                input.count >= 2 && input[0] & 0x0F == 8 && (UInt16(input[0]) << 8 | UInt16(input[1])) % 31 == 0
            windowBits = looksLikeZlib ? 15 : -15
        }
        guard inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ContentDecodingFailure(reason: "zlib could not start decompressing")
        }
        initialized = true
    }

    func decode(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentDecodingFailure) -> (consumed: Int, produced: Int) {
        if isFinished {
            guard input.isEmpty else { throw ContentDecodingFailure(reason: "bytes follow the end of the stream") }
            return (0, 0)
        }
        guard !input.isEmpty, let inputStart = input.baseAddress, let outputStart = output.baseAddress else {
            return (0, 0)
        }
        if !initialized { try start(with: input) }
        if atMemberEnd {
            // Another gzip member follows the one that ended.
            inflateReset(stream)
            atMemberEnd = false
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: inputStart.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = outputStart.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
        }
        let status = inflate(stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        switch status {
        case Z_OK:
            break
        case Z_BUF_ERROR:
            // No progress was possible with this input and output: only an error when there was room to write.
            guard consumed > 0 || produced > 0 || output.count == 0 else {
                throw ContentDecodingFailure(reason: "zlib made no progress")
            }
        case Z_STREAM_END:
            if format == .gzip {
                atMemberEnd = true
            } else {
                isFinished = true
            }
        case Z_NEED_DICT:
            throw ContentDecodingFailure(reason: "the stream needs a preset dictionary")
        default:
            let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
            throw ContentDecodingFailure(reason: "the \(format) data is corrupt (\(message))")
        }
        return (consumed, produced)
    }

    func finish() throws(ContentDecodingFailure) {
        // An empty body is an empty representation; a body that stops inside a member is truncated.
        guard !initialized || atMemberEnd || isFinished else {
            throw ContentDecodingFailure(reason: "the \(format) stream ends before its end marker")
        }
    }
}
