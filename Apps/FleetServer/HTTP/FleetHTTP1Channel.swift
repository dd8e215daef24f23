import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 channel with ``RequestFramingHandler`` and ``HTTP10ConnectionHandler`` placed before the
/// conversion to HTTP types, in that order after the parser.
struct FleetHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    /// How long a request body may take from its head to its end (``RequestFramingHandler``).
    let bodyTimeout: TimeAmount

    var responder: Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
            try operations.addHandler(RequestFramingHandler(bodyTimeout: bodyTimeout), position: .before(codec))
            try operations.addHandler(HTTP10ConnectionHandler(), position: .before(codec))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
