import Foundation

extension ClientRequest.Body {
    /// The same body, reporting each chunk to `progress` as the transport pulls it.
    func reportingProgress(_ progress: @escaping @Sendable (TransferProgress) -> Void) -> ClientRequest.Body {
        let length = self.length
        let source = self
        return derived(length: length) {
            let iterator = SerialIterator((source.chunks().makeAsyncIterator(), Int64(0)))
            return AsyncThrowingStream(unfolding: {
                guard let chunk = try await iterator.state.0.next() else { return nil }
                iterator.state.1 += Int64(chunk.count)
                progress(
                    TransferProgress(
                        bytesTransferred: Int64(chunk.count),
                        totalBytesTransferred: iterator.state.1,
                        totalBytesExpected: length
                    )
                )
                return chunk
            })
        }
    }
}
