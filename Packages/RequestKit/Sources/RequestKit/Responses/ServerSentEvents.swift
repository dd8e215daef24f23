/// The server-sent events of a streamed `text/event-stream` response body.
///
/// Returned by ``ResponseStream/serverSentEvents(maximumLength:)`` and
/// ``RequestClient/serverSentEvents(_:parameters:headerFields:lastEventID:)``. The sequence ends when the server
/// ends the body; an event the body ended in the middle of is dropped, as the standard says. RequestKit does not
/// reconnect by itself: to resume, open the stream again with `lastEventID:` set to the last event's
/// ``ServerSentEvent/id``, after its ``ServerSentEvent/retry`` time if the server sent one.
public struct ServerSentEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    public typealias Failure = RequestKitError

    let lines: ResponseLines

    /// Iterates the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = ServerSentEvent
        public typealias Failure = RequestKitError
        var lines: ResponseLines.AsyncIterator
        var parser: ServerSentEventParser

        public mutating func next() async throws(RequestKitError) -> ServerSentEvent? {
            while let line = try await lines.nextTerminatedBytes() {
                if let event = try parser.consume(line) { return event }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            lines: lines.makeAsyncIterator(),
            parser: ServerSentEventParser(maximumDataLength: lines.maximumLength)
        )
    }
}
