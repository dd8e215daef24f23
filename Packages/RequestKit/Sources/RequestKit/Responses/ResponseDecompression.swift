import Foundation
import HTTPTypes

/// Which compressed answers a client asks for and decodes, and how large a decoded body may grow.
///
/// By default every request says `Accept-Encoding: gzip, deflate, br`, and a response with `Content-Encoding: gzip`,
/// `deflate` or `br` is decoded as its body streams in (through the system's zlib and Brotli libraries): the
/// decoders, downloads and streams see the representation itself, never the compressed bytes. The decoded response
/// has no `Content-Encoding` and no `Content-Length` (which counted the compressed bytes).
///
/// Memory stays bounded: each compressed chunk is decoded into pieces of at most 64 KiB, handed on one at a time.
/// A body that decodes to more than ``maximumDecodedSize`` bytes (a decompression bomb) fails with
/// ``RequestKitError/Code/bodyTooLarge``; a corrupt or truncated stream fails with
/// ``RequestKitError/Code/decompressionFailed``, and so does a coding RequestKit cannot decode.
///
/// ```swift
/// var configuration = RequestClient.Configuration()
/// configuration.decompression.maximumDecodedSize = 16 * 1024 * 1024
/// // or: configuration.decompression = .disabled
/// ```
public struct ResponseDecompression: Sendable, Hashable {
    /// Whether requests ask for compressed answers and compressed answers are decoded.
    public var isEnabled: Bool
    /// The most bytes one decoded body may have.
    public var maximumDecodedSize: Int64

    /// Creates a setting.
    public init(isEnabled: Bool = true, maximumDecodedSize: Int64 = 1 << 30) {
        self.isEnabled = isEnabled
        self.maximumDecodedSize = maximumDecodedSize
    }

    /// Asks for and decodes gzip, deflate and Brotli, up to 1 GiB per decoded body (the default).
    public static var automatic: ResponseDecompression { ResponseDecompression() }

    /// Asks for nothing and decodes nothing: bodies arrive as the server sent them.
    public static var disabled: ResponseDecompression { ResponseDecompression(isEnabled: false) }

    /// The codings RequestKit decodes, as sent in `Accept-Encoding`.
    public static let supportedEncodings: [String] = ["gzip", "deflate", "br"]

    /// The value of `Accept-Encoding` sent by default.
    static let acceptEncoding = supportedEncodings.joined(separator: ", ")

    /// The response with its body decoded when its `Content-Encoding` names codings, or the response itself.
    ///
    /// It takes the response over, so that an answer without codings is handed on without a copy.
    func decode(_ response: consuming ClientResponse, operation: String) -> ClientResponse {
        guard isEnabled, let header = response.headerFields[.contentEncoding] else { return response }
        // Codings are listed in the order they were applied; "identity" adds nothing.
        let codings = header.split(separator: ",").map { $0.trimmingOptionalWhitespace().lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return response }
        var decoded = response
        var body = decoded.body
        for coding in codings.reversed() {
            body = ClientResponse.Body(
                DecodedChunks(
                    base: body,
                    coding: coding,
                    limit: maximumDecodedSize,
                    url: decoded.url,
                    operation: operation
                )
            )
        }
        decoded.body = body
        decoded.headerFields[.contentEncoding] = nil
        decoded.headerFields[.contentLength] = nil
        return decoded
    }
}

/// The chunks of a body with one content coding removed.
struct DecodedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    /// The size of the pieces a chunk is decoded into.
    static let pieceSize = 64 * 1024

    let base: ClientResponse.Body
    let coding: String
    let limit: Int64
    let url: URL
    let operation: String

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), owner: self)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: ClientResponse.Body.AsyncIterator
        let owner: DecodedChunks
        var decoder: (any ContentDecoder)?
        var pending = Data()
        var offset = 0
        var decodedSize: Int64 = 0
        var ended = false

        init(base: ClientResponse.Body.AsyncIterator, owner: DecodedChunks) {
            self.base = base
            self.owner = owner
        }

        mutating func next() async throws -> Data? {
            do {
                return try await nextPiece()
            } catch let failure as ContentDecodingFailure {
                throw self.failure(failure.reason)
            }
        }

        private mutating func nextPiece() async throws -> Data? {
            while !ended {
                if offset == pending.count {
                    guard let chunk = try await base.next() else {
                        ended = true
                        try decoder?.finish()
                        return nil
                    }
                    pending = chunk
                    offset = 0
                    continue
                }
                let decoder = try self.decoder ?? Self.makeDecoder(for: owner.coding)
                self.decoder = decoder
                // Small bodies get small pieces: eight times the compressed bytes left covers most of them.
                var piece = Data(
                    count: Swift.min(DecodedChunks.pieceSize, Swift.max(4096, (pending.count - offset) * 8))
                )
                let start = offset
                let (consumed, produced) = try pending.withUnsafeBytes { input in
                    try piece.withUnsafeMutableBytes { output in
                        try decoder.decode(UnsafeRawBufferPointer(rebasing: input[start...]), into: output)
                    }
                }
                offset += consumed
                if produced > 0 {
                    decodedSize += Int64(produced)
                    guard decodedSize <= owner.limit else {
                        throw RequestKitError(
                            .bodyTooLarge,
                            subject: owner.url.absoluteString,
                            reason: "the decompressed body is larger than the limit of \(owner.limit) bytes",
                            operation: owner.operation,
                            url: owner.url
                        )
                    }
                    piece.count = produced
                    return piece
                }
                if consumed == 0 {
                    throw ContentDecodingFailure(reason: "the decoder stopped taking input")
                }
            }
            return nil
        }

        private func failure(_ reason: String) -> RequestKitError {
            RequestKitError(
                .decompressionFailed,
                subject: owner.url.absoluteString,
                reason: "the \(owner.coding) body cannot be decoded: \(reason)",
                operation: owner.operation,
                url: owner.url
            )
        }

        static func makeDecoder(for coding: String) throws(ContentDecodingFailure) -> any ContentDecoder {
            switch coding {
            case "gzip", "x-gzip": return Inflater(format: .gzip)
            case "deflate": return Inflater(format: .deflate)
            case "br": return BrotliDecoder()
            default: throw ContentDecodingFailure(reason: "RequestKit does not decode this content coding")
            }
        }
    }
}
