import CRequestKitZlib
import Foundation

/// Compresses a body with gzip (RFC 1952) chunk by chunk as it is read, through the system zlib.
///
/// The compressed length is known only at the end, so a body compressed this way is sent chunked.
final class GzipStream {
    /// The zlib state; allocated once so its address never moves (zlib keeps a pointer back to it).
    private let stream: UnsafeMutablePointer<z_stream>
    /// Where `deflate` writes before the bytes are copied out.
    private var buffer: [UInt8]

    init(bufferSize: Int = 64 * 1024) throws(RequestKitError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = [UInt8](repeating: 0, count: bufferSize)
        let windowBitsWithGzipHeader: Int32 = 15 + 16
        let status = deflateInit2_(
            stream,
            Z_DEFAULT_COMPRESSION,
            Z_DEFLATED,
            windowBitsWithGzipHeader,
            8,
            Z_DEFAULT_STRATEGY,
            zlibVersion(),
            Int32(MemoryLayout<z_stream>.size)
        )
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw RequestKitError(.invalidRequest, subject: "gzip", reason: "zlib could not start compressing")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` and returns what zlib has ready, possibly nothing; `finish` ends the stream and returns
    /// the rest with the gzip trailer.
    func compress(_ input: Data, finish: Bool) throws(RequestKitError) -> Data {
        var output = Data()
        if input.isEmpty, !finish { return output }
        let stream = self.stream
        let status = input.withUnsafeBytes { (source: UnsafeRawBufferPointer) -> Int32 in
            stream.pointee.next_in = source.baseAddress.map {
                UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
            }
            stream.pointee.avail_in = uInt(source.count)
            defer {
                stream.pointee.next_in = nil
                stream.pointee.avail_in = 0
            }
            return buffer.withUnsafeMutableBufferPointer { target -> Int32 in
                while true {
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    let status = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    let produced = target.count - Int(stream.pointee.avail_out)
                    if produced > 0, let start = target.baseAddress { output.append(start, count: produced) }
                    switch status {
                    case Z_STREAM_END:
                        return status
                    case Z_OK, Z_BUF_ERROR:
                        // Without finishing, zlib is done with this input once it leaves room in the buffer; when
                        // finishing, it is done only at the end of the stream.
                        if !finish, stream.pointee.avail_out != 0 { return Z_OK }
                        if status == Z_BUF_ERROR, produced == 0 { return status }
                    default:
                        return status
                    }
                }
            }
        }
        guard status == Z_OK || status == Z_STREAM_END else {
            throw RequestKitError(.invalidRequest, subject: "gzip", reason: "zlib failed with status \(status)")
        }
        return output
    }
}

/// The chunks of a body compressed with gzip, produced one at a time for `AsyncThrowingStream(unfolding:)`.
///
/// `@unchecked Sendable` is safe here: the unfolding closure that owns it is called for one element at a time and
/// awaited before the next call, so the source iterator and the zlib state are never used by two calls at once.
final class GzipChunks: @unchecked Sendable {
    private var source: AsyncThrowingStream<Data, any Error>.AsyncIterator
    private var gzip: GzipStream?
    private var finished = false

    init(source: AsyncThrowingStream<Data, any Error>) {
        self.source = source.makeAsyncIterator()
    }

    /// The next compressed chunk, or `nil` after the gzip trailer.
    func next() async throws -> Data? {
        while !finished {
            let gzip = try self.gzip ?? GzipStream()
            self.gzip = gzip
            guard let chunk = try await source.next() else {
                finished = true
                return try gzip.compress(Data(), finish: true)
            }
            let compressed = try gzip.compress(chunk, finish: false)
            if !compressed.isEmpty { return compressed }
        }
        self.gzip = nil
        return nil
    }
}
