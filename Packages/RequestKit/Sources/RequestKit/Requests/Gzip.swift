import CRequestKitZlib
import Foundation

/// Compresses request bodies with gzip (RFC 1952) through the system zlib.
enum Gzip {
    static func compress(_ data: Data) throws(RequestKitError) -> Data {
        var stream = z_stream()
        let windowBitsWithGzipHeader: Int32 = 15 + 16
        guard
            deflateInit2_(
                &stream,
                Z_DEFAULT_COMPRESSION,
                Z_DEFLATED,
                windowBitsWithGzipHeader,
                8,
                Z_DEFAULT_STRATEGY,
                zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)
            ) == Z_OK
        else {
            throw RequestKitError(.invalidRequest, subject: "gzip", reason: "zlib could not start compressing")
        }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 32)
        var input = data
        let status = input.withUnsafeMutableBytes { (source: UnsafeMutableRawBufferPointer) -> Int32 in
            output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) -> Int32 in
                stream.next_in = source.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else {
            throw RequestKitError(.invalidRequest, subject: "gzip", reason: "zlib failed with status \(status)")
        }
        output.count = Int(stream.total_out)
        return output
    }
}
