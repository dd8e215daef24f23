import CRequestKitBrotli

/// Decompresses the `br` content coding (RFC 7932) chunk by chunk through the system's Brotli library.
final class BrotliDecoder: ContentDecoder {
    /// The decoder state, or `nil` when the library could not allocate one.
    private let state: OpaquePointer?
    private var isFinished = false
    private var started = false

    init() {
        state = BrotliDecoderCreateInstance(nil, nil, nil)
    }

    deinit {
        if let state { BrotliDecoderDestroyInstance(state) }
    }

    func decode(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentDecodingFailure) -> (consumed: Int, produced: Int) {
        guard let state else { throw ContentDecodingFailure(reason: "the Brotli decoder could not be created") }
        if isFinished {
            guard input.isEmpty else { throw ContentDecodingFailure(reason: "bytes follow the end of the stream") }
            return (0, 0)
        }
        guard !input.isEmpty, let inputStart = input.baseAddress, let outputStart = output.baseAddress else {
            return (0, 0)
        }
        started = true
        var availableIn = input.count
        var nextIn: UnsafePointer<UInt8>? = inputStart.assumingMemoryBound(to: UInt8.self)
        var availableOut = output.count
        var nextOut: UnsafeMutablePointer<UInt8>? = outputStart.assumingMemoryBound(to: UInt8.self)
        let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
        switch result {
        case BROTLI_DECODER_RESULT_SUCCESS:
            isFinished = true
        case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT, BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
            break
        default:
            let code = BrotliDecoderGetErrorCode(state)
            let message = BrotliDecoderErrorString(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
            throw ContentDecodingFailure(reason: "the br data is corrupt (\(message))")
        }
        return (input.count - availableIn, output.count - availableOut)
    }

    func finish() throws(ContentDecodingFailure) {
        guard !started || isFinished else {
            throw ContentDecodingFailure(reason: "the br stream ends before its last block")
        }
    }
}
