import Foundation

/// A response body passed on to the caller as it arrives while a copy is collected for the cache, handed to
/// `store` once the body is complete. Past `limit` bytes collecting stops and nothing is stored.
struct StoringBody: AsyncSequence, Sendable {
    typealias Element = Data

    let base: ClientResponse.Body
    let limit: Int
    let store: @Sendable (Data) async -> Void

    /// The body for a response: read chunk by chunk or collected whole through the base body's own fast path,
    /// storing in both cases.
    static func wrap(
        _ base: ClientResponse.Body,
        limit: Int,
        store: @escaping @Sendable (Data) async -> Void
    ) -> ClientResponse.Body {
        let body = StoringBody(base: base, limit: limit, store: store)
        return ClientResponse.Body(body) { callerLimit in
            let data = try await base.collect(upTo: callerLimit)
            if data.count <= limit { await store(data) }
            return data
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: ClientResponse.Body.AsyncIterator
        let limit: Int
        let store: @Sendable (Data) async -> Void
        /// What was read so far, or `nil` once the body is past the limit or stored.
        var collected: Data? = Data()

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                if let collected {
                    self.collected = nil
                    await store(collected)
                }
                return nil
            }
            if var buffer = collected {
                // Taken out first, so appending does not copy the buffer.
                collected = nil
                if buffer.count + chunk.count <= limit {
                    buffer.append(chunk)
                    collected = buffer
                }
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, store: store)
    }
}
