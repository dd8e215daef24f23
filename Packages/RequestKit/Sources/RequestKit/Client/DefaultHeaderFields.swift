import HTTPTypes

/// The header fields a prepared request gets when neither the request nor the client's configuration set them.
///
/// `User-Agent` names RequestKit and its version; `Accept` says what the call expects (JSON for a model, anything
/// for ``ResponseContent``, the stream's type for a stream).
enum DefaultHeaderFields {
    /// What a call decoding into a model accepts.
    static let json = "application/json"
    /// What a call decoding by media type accepts.
    static let any = "*/*"
    /// What a stream of newline-delimited JSON values accepts.
    static let jsonLines = "application/x-ndjson, application/jsonl, application/json;q=0.9"
    /// What a stream of server-sent events accepts.
    static let eventStream = "text/event-stream"

    /// Adds `User-Agent` and, if given, `Accept`, where `fields` has none.
    static func fill(_ fields: inout HTTPFields, accept: String?) {
        if fields[.userAgent] == nil { fields[.userAgent] = RequestKitVersion.userAgent }
        if let accept, fields[.accept] == nil { fields[.accept] = accept }
    }
}
