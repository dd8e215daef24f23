import Foundation
import ModelKit

/// A `multipart/form-data` body streamed part by part with an exact length, never copied into a temp file.
struct MultipartBody: Sendable {
    enum Content: Sendable {
        case data(Data)
        case file(URL, length: Int64)
        case stream(length: Int64, make: @Sendable () -> AsyncThrowingStream<Data, any Error>)
    }

    struct Part: Sendable {
        var name: String
        var fileName: String?
        var mimeType: String?
        var content: Content

        var length: Int64 {
            switch content {
            case .data(let data): Int64(data.count)
            case .file(_, let length): length
            case .stream(let length, _): length
            }
        }
    }

    let boundary: String
    var parts: [Part] = []

    init(boundary: String = "RequestKit-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    func header(of part: Part) -> Data {
        var text = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quote(part.name))\""
        if let fileName = part.fileName {
            text += "; filename=\"\(Self.quote(fileName))\""
        }
        text += "\r\n"
        if let mimeType = part.mimeType {
            text += "Content-Type: \(mimeType)\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    var closing: Data { Data("--\(boundary)--\r\n".utf8) }

    /// The exact number of bytes the body streams.
    var length: Int64 {
        parts.reduce(Int64(closing.count)) { total, part in
            total + Int64(header(of: part).count) + part.length + 2
        }
    }

    /// The body as a replayable stream: each attempt reads files and streams again from the start.
    func makeBody() -> ClientRequest.Body {
        let body = self
        return .stream(length: length) {
            enum Phase {
                case header(Int)
                case content(Int, AsyncThrowingStream<Data, any Error>.AsyncIterator?)
                case closing
                case done
            }
            let iterator = SerialIterator(Phase.header(0))
            return AsyncThrowingStream(unfolding: {
                while true {
                    switch iterator.state {
                    case .header(let index):
                        guard index < body.parts.count else {
                            iterator.state = .closing
                            continue
                        }
                        iterator.state = .content(index, nil)
                        return body.header(of: body.parts[index])
                    case .content(let index, let current):
                        var chunks = current ?? body.stream(of: body.parts[index]).makeAsyncIterator()
                        if let chunk = try await chunks.next() {
                            iterator.state = .content(index, chunks)
                            if chunk.isEmpty { continue }
                            return chunk
                        }
                        iterator.state = .header(index + 1)
                        return Data("\r\n".utf8)
                    case .closing:
                        iterator.state = .done
                        return body.closing
                    case .done:
                        return nil
                    }
                }
            })
        }
    }

    private func stream(of part: Part) -> AsyncThrowingStream<Data, any Error> {
        switch part.content {
        case .data(let data):
            ClientRequest.Body.data(data).chunks()
        case .file(let url, _):
            FileChunks.stream(url: url, chunkSize: 256 * 1024)
        case .stream(let length, let make):
            Self.exactly(length, of: make(), name: part.name)
        }
    }

    /// Passes a stream through, failing if it produces more or fewer bytes than it promised.
    private static func exactly(
        _ length: Int64,
        of stream: AsyncThrowingStream<Data, any Error>,
        name: String
    ) -> AsyncThrowingStream<Data, any Error> {
        let iterator = SerialIterator((stream.makeAsyncIterator(), Int64(0)))
        return AsyncThrowingStream(unfolding: {
            guard let chunk = try await iterator.state.0.next() else {
                guard iterator.state.1 == length else {
                    throw RequestKitError(
                        .invalidRequest,
                        subject: name,
                        reason: "the part streamed \(iterator.state.1) bytes, not the promised \(length)"
                    )
                }
                return nil
            }
            iterator.state.1 += Int64(chunk.count)
            guard iterator.state.1 <= length else {
                throw RequestKitError(
                    .invalidRequest,
                    subject: name,
                    reason: "the part streamed more than the promised \(length) bytes"
                )
            }
            return chunk
        })
    }

    private static func quote(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}
