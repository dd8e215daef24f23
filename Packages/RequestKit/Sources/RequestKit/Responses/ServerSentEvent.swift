/// One event of a server-sent event stream (`text/event-stream`).
///
/// ```
/// event: position
/// id: 42
/// data: {"plate": "AB 123",
/// data:  "lat": 59.3}
/// ```
///
/// arrives as `ServerSentEvent(type: "position", data: "{\"plate\": \"AB 123\",\n \"lat\": 59.3}", id: "42")`.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type from the `event:` field; `message` when the event named none.
    public var type: String
    /// The `data:` lines of the event joined with a line feed (`\n`).
    public var data: String
    /// The last event ID the stream set with an `id:` field, at this event or an earlier one; `nil` while none was
    /// set or after it was cleared with an empty `id:`. Send it back as `Last-Event-ID` to resume after a
    /// disconnection.
    public var id: String?
    /// The reconnection time the stream last asked for with a `retry:` field, if any.
    public var retry: Duration?

    /// Creates an event.
    public init(type: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
