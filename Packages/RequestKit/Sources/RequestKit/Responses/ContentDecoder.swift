/// Decodes one content coding of a response body, a piece at a time.
///
/// Implementations keep the decoder's state between calls; one instance decodes one body, from one task at a time.
protocol ContentDecoder: AnyObject {
    /// Decodes from `input` into `output`, and says how many bytes of each it used. Called again with the input
    /// left over until all of it is consumed.
    func decode(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentDecodingFailure) -> (consumed: Int, produced: Int)

    /// Checks, once the body has ended, that the coded stream was complete.
    func finish() throws(ContentDecodingFailure)
}

/// Why a coded body could not be decoded.
struct ContentDecodingFailure: Error {
    var reason: String
}
