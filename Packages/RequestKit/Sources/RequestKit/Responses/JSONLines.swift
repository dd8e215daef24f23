import Foundation
import HTTPTypes
import ModelKit

/// Newline-delimited JSON values (NDJSON, JSON Lines) decoded one line at a time from a streamed response body.
///
/// Returned by ``ResponseStream/jsonLines(of:maximumLength:)`` and ``RequestClient/jsonLines(_:parameters:headerFields:as:)``.
/// Blank lines are skipped; a line that does not decode throws ``RequestKitError/Code/decodingFailed`` whose reason
/// starts with the line number (`line 3: modelYear: expected Int, found string "abc"`).
public struct JSONLines<Model: Decodable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = Model
    public typealias Failure = RequestKitError

    let lines: ResponseLines
    let makeJSONDecoder: (@Sendable () -> JSONDecoder)?

    /// Iterates the decoded values.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = Model
        public typealias Failure = RequestKitError
        var lines: ResponseLines.AsyncIterator
        let decoder: JSONDecoder?
        let status: Int

        public mutating func next() async throws(RequestKitError) -> Model? {
            while let line = try await lines.nextBytes() {
                guard line.contains(where: { !Self.isWhitespace($0) }) else { continue }
                return try decode(Data(line), lineNumber: lines.lineNumber)
            }
            return nil
        }

        private func decode(_ data: Data, lineNumber: Int) throws(RequestKitError) -> Model {
            do {
                if let decoder { return try decoder.decode(Model.self, from: data) }
                return try ModelCoding.decode(Model.self, from: data)
            } catch let error as ModelDecodingError {
                throw failure("line \(lineNumber): \(error.description)", error)
            } catch {
                throw failure("line \(lineNumber): \(DecodingErrorPath.describe(error))", error)
            }
        }

        private func failure(_ reason: String, _ error: any Error) -> RequestKitError {
            RequestKitError(
                .decodingFailed,
                subject: "\(Model.self)",
                reason: reason,
                operation: lines.chunks.operation,
                url: lines.chunks.url,
                status: status,
                underlying: error
            )
        }

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            lines: lines.makeAsyncIterator(),
            decoder: makeJSONDecoder?(),
            status: lines.stream.status.code
        )
    }
}
