import Foundation

/// Reads a file in chunks as an async stream, closing it when the stream ends or is cancelled.
enum FileChunks {
    static func stream(url: URL, chunkSize: Int) -> AsyncThrowingStream<Data, any Error> {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            return AsyncThrowingStream { continuation in
                continuation.finish(
                    throwing: RequestKitError(
                        .fileSystem,
                        subject: url.path,
                        reason: "the file cannot be opened",
                        underlying: error
                    )
                )
            }
        }
        return AsyncThrowingStream(unfolding: {
            do {
                let chunk = try handle.read(upToCount: chunkSize) ?? Data()
                if chunk.isEmpty {
                    try? handle.close()
                    return nil
                }
                return chunk
            } catch {
                try? handle.close()
                throw RequestKitError(
                    .fileSystem,
                    subject: url.path,
                    reason: "the file cannot be read",
                    underlying: error
                )
            }
        })
    }
}
