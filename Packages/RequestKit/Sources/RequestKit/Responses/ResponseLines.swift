import Foundation

/// The lines of a streamed response body, as ``ResponseStream/lines(maximumLength:)`` returns them.
///
/// Lines end at LF, CR LF or CR and are decoded as UTF-8 (invalid bytes become U+FFFD). A last line without a
/// terminator is returned too. Lines are read from the connection as they are iterated.
public struct ResponseLines: AsyncSequence, Sendable {
    public typealias Element = String
    public typealias Failure = RequestKitError

    let stream: ResponseStream
    let maximumLength: Int

    /// Iterates the lines.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = String
        public typealias Failure = RequestKitError
        var chunks: ResponseStream.AsyncIterator
        var splitter: LineSplitter
        var ended = false
        /// The number of the last line returned, from 1.
        var lineNumber = 0

        public mutating func next() async throws(RequestKitError) -> String? {
            try await nextBytes().map { String(decoding: $0, as: UTF8.self) }
        }

        /// The next line's bytes, without decoding them.
        mutating func nextBytes() async throws(RequestKitError) -> [UInt8]? {
            while true {
                if let line = try splitter.nextLine() {
                    lineNumber += 1
                    return line
                }
                if ended { return nil }
                if let chunk = try await chunks.next() {
                    splitter.append(chunk)
                } else {
                    ended = true
                    if let last = splitter.finish() {
                        lineNumber += 1
                        return last
                    }
                    return nil
                }
            }
        }

        /// Reads the next line's bytes but drops a last line that has no terminator (event streams discard it).
        mutating func nextTerminatedBytes() async throws(RequestKitError) -> [UInt8]? {
            while true {
                if let line = try splitter.nextLine() {
                    lineNumber += 1
                    return line
                }
                guard !ended, let chunk = try await chunks.next() else {
                    ended = true
                    return nil
                }
                splitter.append(chunk)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: stream.makeAsyncIterator(), splitter: LineSplitter(maximumLength: maximumLength))
    }
}
