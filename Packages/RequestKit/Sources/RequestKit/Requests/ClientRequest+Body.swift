public import Foundation
import Synchronization

extension ClientRequest {
    /// The body of a request: bytes in memory, a file on disk, or a stream.
    ///
    /// Data, files and streams made by a factory can be produced again from the start, so retries, redirects and
    /// authentication refreshes can replay them. A stream handed over as it is (``stream(length:once:)``) can be sent
    /// only once: a request with such a body is never retried, and fails with ``RequestKitError/Code/invalidRequest``
    /// when it would have to be. Streams and files are read in chunks, never loaded into memory as a whole.
    public struct Body: Sendable {
        enum Storage: Sendable {
            case data(Data)
            case file(URL, length: Int64)
            case stream(length: Int64?, makeStream: @Sendable () -> AsyncThrowingStream<Data, any Error>)
        }

        let storage: Storage
        /// Whether ``chunks(chunkSize:)`` can produce the body again from the start.
        public let isReplayable: Bool

        init(storage: Storage, isReplayable: Bool = true) {
            self.storage = storage
            self.isReplayable = isReplayable
        }

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
        public static func data(_ data: Data) -> ClientRequest.Body {
            ClientRequest.Body(storage: .data(data))
        }

        /// A body read from a file in chunks while it is sent.
        ///
        /// - Throws: ``RequestKitError/Code/fileSystem`` when the file does not exist or its size cannot be read.
        public static func file(_ url: URL) throws(RequestKitError) -> ClientRequest.Body {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                let size = (attributes[.size] as? NSNumber)?.int64Value
            else {
                throw RequestKitError(.fileSystem, subject: url.path, reason: "the file cannot be read")
            }
            return ClientRequest.Body(storage: .file(url, length: size))
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
        ) -> ClientRequest.Body {
            ClientRequest.Body(storage: .stream(length: length, makeStream: makeStream))
        }

        /// A body read once from `stream`, for bytes that cannot be produced again (a pipe, a socket, a stream handed
        /// over by another library).
        ///
        /// Such a body is sent at most once: a retry, an authentication replay or a redirect that would send it again
        /// fails with ``RequestKitError/Code/invalidRequest`` instead. Prefer ``stream(length:_:)`` with a factory
        /// whenever the bytes can be produced again.
        ///
        /// - Parameters:
        ///   - length: the exact number of bytes the stream produces, when known (sent as `Content-Length`);
        ///     `nil` sends the body chunked.
        ///   - stream: the body's bytes.
        public static func stream(
            length: Int64?,
            once stream: AsyncThrowingStream<Data, any Error>
        ) -> ClientRequest.Body {
            let source = OneShotStream(stream)
            return ClientRequest.Body(
                storage: .stream(length: length, makeStream: { source.take() }),
                isReplayable: false
            )
        }

        /// A body that produces `makeStream`'s bytes and is replayable exactly when this body is.
        func derived(
            length: Int64?,
            _ makeStream: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>
        ) -> ClientRequest.Body {
            ClientRequest.Body(storage: .stream(length: length, makeStream: makeStream), isReplayable: isReplayable)
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
}

/// Hands out a stream once; later requests for it get a stream that fails saying why.
private final class OneShotStream: Sendable {
    private let stream: Mutex<AsyncThrowingStream<Data, any Error>?>

    init(_ stream: AsyncThrowingStream<Data, any Error>) {
        self.stream = Mutex(stream)
    }

    func take() -> AsyncThrowingStream<Data, any Error> {
        if let stream = stream.withLock({ $0.take() }) { return stream }
        return AsyncThrowingStream(unfolding: {
            throw RequestKitError(
                .invalidRequest,
                subject: "request body",
                reason: "a one-shot stream body was already sent and cannot be sent again"
            )
        })
    }
}
