/// Progress of an upload or download: the bytes of the latest chunk, the running total, and the expected total.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes moved by the latest chunk.
    public var bytesTransferred: Int64
    /// Bytes moved so far (for a resumed download, including the bytes already on disk).
    public var totalBytesTransferred: Int64
    /// Bytes expected in total, when the length is known.
    public var totalBytesExpected: Int64?

    /// Creates a progress value.
    public init(bytesTransferred: Int64, totalBytesTransferred: Int64, totalBytesExpected: Int64?) {
        self.bytesTransferred = bytesTransferred
        self.totalBytesTransferred = totalBytesTransferred
        self.totalBytesExpected = totalBytesExpected
    }
}
