/// Turns the lines of a `text/event-stream` body into events, as the WHATWG HTML standard's event stream
/// interpretation does; a state machine that tests drive line by line.
///
/// Comments (lines starting with `:`) and unknown fields are ignored; `data:` lines are joined with LF; `id:` sets
/// the last event ID (kept across events, ignored when it contains NUL); `retry:` with ASCII digits only sets the
/// reconnection time; an empty line dispatches the event if it has data. A leading UTF-8 byte order mark is skipped.
struct ServerSentEventParser: Sendable {
    /// The most bytes of data one event may gather.
    let maximumDataLength: Int
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    private var lastEventID = ""
    private var retry: Duration?
    private var atStart = true

    init(maximumDataLength: Int) {
        self.maximumDataLength = maximumDataLength
    }

    /// Consumes one line (without its terminator) and returns the event it completes, if any.
    mutating func consume(_ line: [UInt8]) throws(RequestKitError) -> ServerSentEvent? {
        var line = line[...]
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            guard data.count + value.count + 1 <= maximumDataLength else {
                throw RequestKitError(
                    .bodyTooLarge,
                    subject: "server-sent event",
                    reason: "an event's data is longer than the limit of \(maximumDataLength) bytes"
                )
            }
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let milliseconds = Int64(String(decoding: value, as: UTF8.self))
            {
                retry = .milliseconds(milliseconds)
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
        }
        guard hasData else { return nil }
        return ServerSentEvent(
            type: eventType.isEmpty ? "message" : eventType,
            data: String(decoding: data, as: UTF8.self),
            id: lastEventID.isEmpty ? nil : lastEventID,
            retry: retry
        )
    }
}
