public import Foundation

extension ClientResponse {
    /// The body of a response as an asynchronous sequence of chunks, consumed once.
    ///
    /// Transports hand bodies over as they arrive, so a download never holds the whole body in memory. Cancelling the
    /// task that iterates the body stops the transfer.
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = Data
        public typealias Failure = any Error

        private let makeIteratorBody: @Sendable () -> AsyncIterator
        private let collector: (@Sendable (Int) async throws -> Data)?

        /// The iterator of a response body.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private var base: any AsyncIteratorProtocol<Data, any Error>

            init(base: any AsyncIteratorProtocol<Data, any Error>) {
                self.base = base
            }

            public mutating func next() async throws -> Data? {
                try await base.next()
            }
        }

        /// A body that wraps any sequence of chunks.
        ///
        /// - Parameters:
        ///   - chunks: The body's bytes, chunk by chunk.
        ///   - collect: an optional faster way to gather the whole body (for example the transport's own),
        ///     used by ``collect(upTo:)`` instead of iterating; it must throw ``RequestKitError/Code/bodyTooLarge``
        ///     past the limit it is given.
        public init<Chunks: AsyncSequence & Sendable>(
            _ chunks: Chunks,
            collect: (@Sendable (Int) async throws -> Data)? = nil
        ) where Chunks.Element == Data {
            makeIteratorBody = {
                AsyncIterator(base: ErasedIterator(base: chunks.makeAsyncIterator()))
            }
            collector = collect
        }

        /// A body whose bytes are already in memory.
        public init(data: Data) {
            // One chunk, and collecting hands the data over as it is: mock transports and caches answer every request
            // this way, and an `AsyncThrowingStream` cost four allocations and a lock per body.
            self.init(InMemoryChunk(data: data)) { limit in
                guard data.count <= limit else {
                    throw RequestKitError(
                        .bodyTooLarge,
                        subject: "response body",
                        reason: "the body is larger than the limit of \(limit) bytes"
                    )
                }
                return data
            }
        }

        /// An empty body.
        public static var empty: ClientResponse.Body { ClientResponse.Body(data: Data()) }

        public func makeAsyncIterator() -> AsyncIterator {
            makeIteratorBody()
        }

        /// Collects the whole body into memory.
        ///
        /// It runs on the caller's executor (`nonisolated(nonsending)`), so collecting costs no hop of its own; the
        /// transport's chunks arrive as they do for any iteration.
        ///
        /// - Parameter limit: the most bytes to accept.
        /// - Throws: ``RequestKitError/Code/bodyTooLarge`` when the body is longer than `limit`, or the transport's error.
        nonisolated(nonsending) public func collect(upTo limit: Int) async throws -> Data {
            if let collector { return try await collector(limit) }
            var collected = Data()
            for try await chunk in self {
                guard collected.count + chunk.count <= limit else {
                    throw RequestKitError(
                        .bodyTooLarge,
                        subject: "response body",
                        reason: "the body is larger than the limit of \(limit) bytes"
                    )
                }
                collected.append(chunk)
            }
            return collected
        }
    }
}

/// The chunks of a body already in memory: its data once, or nothing when it is empty.
private struct InMemoryChunk: AsyncSequence, Sendable {
    typealias Element = Data
    let data: Data

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: Data?

        mutating func next() async throws -> Data? {
            defer { remaining = nil }
            return remaining
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(remaining: data.isEmpty ? nil : data)
    }
}

/// Wraps a concrete iterator so its `Failure` is `any Error`.
private struct ErasedIterator<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == Data {
    var base: Base
    mutating func next() async throws -> Data? {
        try await base.next()
    }
}
