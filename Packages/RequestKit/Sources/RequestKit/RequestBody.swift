public import Foundation

/// The body of a request: bytes in memory, a file on disk, or a replayable stream.
///
/// Every kind can be produced again from the start, so retries and redirects can replay a body. Streams and files
/// are read in chunks, never loaded into memory as a whole.
public struct RequestBody: Sendable {
    enum Storage: Sendable {
        case data(Data)
        case file(URL, length: Int64)
        case stream(length: Int64?, makeStream: @Sendable () -> AsyncThrowingStream<Data, any Error>)
    }

    let storage: Storage

    /// The size of the body in bytes, when it is known before sending.
    public var length: Int64? {
        switch storage {
        case .data(let data): Int64(data.count)
        case .file(_, let length): length
        case .stream(let length, _): length
        }
    }

    /// The bytes of the body when it is held in memory.
    public var data: Data? {
        if case .data(let data) = storage { return data }
        return nil
    }

    /// A body of bytes held in memory.
    public static func data(_ data: Data) -> RequestBody {
        RequestBody(storage: .data(data))
    }

    /// A body read from a file in chunks while it is sent.
    ///
    /// - Throws: ``RequestKitError/Code/fileSystem`` when the file does not exist or its size cannot be read.
    public static func file(_ url: URL) throws(RequestKitError) -> RequestBody {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else {
            throw RequestKitError(code: .fileSystem, subject: url.path, reason: "the file cannot be read")
        }
        return RequestBody(storage: .file(url, length: size))
    }

    /// A body produced by a stream factory, called again for every attempt so the body can be replayed.
    ///
    /// - Parameters:
    ///   - length: the exact number of bytes the stream produces, when known (sent as `Content-Length`);
    ///     `nil` sends the body chunked.
    ///   - makeStream: makes a fresh stream of the body's bytes from the start.
    public static func stream(
        length: Int64?,
        _ makeStream: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>
    ) -> RequestBody {
        RequestBody(storage: .stream(length: length, makeStream: makeStream))
    }

    /// A fresh stream of the body's bytes from the start.
    public func chunks(chunkSize: Int = 64 * 1024) -> AsyncThrowingStream<Data, any Error> {
        switch storage {
        case .data(let data):
            return AsyncThrowingStream { continuation in
                continuation.yield(data)
                continuation.finish()
            }
        case .stream(_, let makeStream):
            return makeStream()
        case .file(let url, _):
            return FileChunks.stream(url: url, chunkSize: chunkSize)
        }
    }
}
