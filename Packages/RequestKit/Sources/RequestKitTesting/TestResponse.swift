public import Foundation

/// A response the ``TestServer`` sends.
public struct TestResponse: Sendable {
    /// How the body is sent.
    public enum Body: Sendable {
        /// The bytes, with a `Content-Length`.
        case data(Data)
        /// The chunks one after another, flushed each, with `Transfer-Encoding: chunked`.
        case chunks([Data])
        /// `count` bytes of `byte` sent in 64 KiB pieces as the client reads them, with a `Content-Length`.
        case generated(byte: UInt8, count: Int64)
        /// Sends a `Content-Length` of `declaredLength` and only `prefix`, then nothing more: a stalled server.
        case stall(prefix: Data, declaredLength: Int)
        /// The chunks as the stream yields them, each flushed at once, with `Transfer-Encoding: chunked`; the body
        /// ends when the stream finishes. The next chunk is taken only once the previous one was written, so a
        /// test can pause between chunks (yield the next after the client has read the last) without sleeping.
        case stream(AsyncStream<Data>)
    }

    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body
    /// Whether the server closes the connection instead of answering (see ``closeConnection``).
    var closesConnection = false

    /// Creates a response.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: Body = .data(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ text: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "application/json")], body: .data(Data(text.utf8)))
    }

    /// A text response.
    public static func text(
        _ text: String,
        status: Int = 200,
        contentType: String = "text/plain; charset=utf-8"
    )
        -> TestResponse
    {
        TestResponse(status: status, headers: [("Content-Type", contentType)], body: .data(Data(text.utf8)))
    }

    /// A response whose body is streamed chunk by chunk as `chunks` yields them (see ``Body/stream(_:)``).
    public static func stream(
        _ chunks: AsyncStream<Data>,
        status: Int = 200,
        contentType: String
    ) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", contentType)], body: .stream(chunks))
    }

    /// No response at all: the server closes the connection without answering, as a server that crashes or
    /// restarts mid-request does. A ``MockTransport`` throws ``RequestKit/RequestKitError/connectionLost(_:reason:operation:url:underlying:)``.
    public static var closeConnection: TestResponse {
        var response = TestResponse(status: 500)
        response.closesConnection = true
        return response
    }

    /// An empty response with a status.
    public static func status(_ status: Int) -> TestResponse {
        TestResponse(status: status)
    }
}
