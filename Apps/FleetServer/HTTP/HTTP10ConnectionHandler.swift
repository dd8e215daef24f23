import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Gives HTTP/1.0 requests the connection handling HTTP/1.0 defines, which is lost once a request becomes an
/// `HTTPRequest` (it has no version):
///
/// - A request without `Connection: keep-alive` ends its connection: it is marked `Connection: close` for the
///   server, and its answer says so.
/// - A request with `Connection: keep-alive` keeps the connection when its answer has a `Content-Length`, and the
///   answer says `Connection: keep-alive` (an HTTP/1.0 client assumes the connection ends otherwise).
/// - An answer to an HTTP/1.0 request is never chunked (RFC 9112 §6.1): one without a length is sent as HTTP/1.0,
///   delimited by closing the connection.
///
/// It sits before the conversion to HTTP types, where the request line's version is still known.
final class HTTP10ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Exchange {
        case current
        case legacyKeepAlive
        case legacyClose
    }

    /// One entry per request whose answer has not started, in order (requests may be pipelined).
    private var exchanges = CircularBuffer<Exchange>()
    /// Whether the answer being written ends the connection once it is complete.
    private var closeAfterAnswer = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        guard head.version.major == 1, head.version.minor == 0 else {
            exchanges.append(.current)
            context.fireChannelRead(data)
            return
        }
        if head.isKeepAlive {
            exchanges.append(.legacyKeepAlive)
        } else {
            exchanges.append(.legacyClose)
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            // An informational answer (1xx) precedes the final one and leaves the exchange open.
            switch exchanges.popFirst() ?? .current {
            case .current:
                context.write(data, promise: promise)
            case .legacyKeepAlive where head.headers.contains(name: "content-length"):
                head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            case .legacyKeepAlive, .legacyClose:
                if !head.headers.contains(name: "content-length") {
                    head.version = .http1_0
                    head.headers.remove(name: "transfer-encoding")
                }
                head.headers.replaceOrAdd(name: "connection", value: "close")
                closeAfterAnswer = true
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            }
        case .end where closeAfterAnswer:
            closeAfterAnswer = false
            let promise = promise ?? context.eventLoop.makePromise()
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            promise.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }
}
