import Foundation

extension ClientRequest.Body {
    /// This body compressed with gzip as it is read, for bodies that are not held in memory: a fresh compressor
    /// per attempt, so the body stays replayable, and no length, so it is sent chunked.
    func gzipStreamed() -> ClientRequest.Body {
        let body = self
        return derived(length: nil) {
            let chunks = GzipChunks(source: body.chunks())
            return AsyncThrowingStream { try await chunks.next() }
        }
    }
}
