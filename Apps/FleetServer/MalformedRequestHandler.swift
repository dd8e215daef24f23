import FleetModels
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP parser refuses with the status that fits and an `application/problem+json` body,
/// then closes the connection (a byte stream that failed to parse cannot be trusted further).
///
/// Oversized or too many header fields are `431`; a method the parser does not know is `501` (a TLS handshake on the
/// plain port reads as one); everything else (conflicting `Content-Length` and `Transfer-Encoding`, a bad request
/// line) is `400`. Without this handler the connection got an empty `400`.
final class MalformedRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let problem = Self.problem(for: error)
        let body = (try? JSONCoding.encoder.encode(problem)) ?? Data()
        var head = HTTPResponse(status: HTTPResponse.Status(code: problem.status))
        head.headerFields[.contentType] = Problem.mediaType
        head.headerFields[.contentLength] = String(body.count)
        head.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }

    static func problem(for error: HTTPParserError) -> Problem {
        switch error {
        case .headerOverflow:
            Problem(
                type: ProblemType.malformedRequest,
                title: "Request header fields too large",
                status: 431,
                detail: "the request's header fields are larger, or more, than the daemon accepts"
            )
        case .invalidMethod:
            Problem(
                type: ProblemType.malformedRequest,
                title: "Not implemented",
                status: 501,
                detail: "the request's method is not one the daemon implements (fleetd speaks plain HTTP/1.1: TLS "
                    + "bytes on its port read as an unknown method)"
            )
        default:
            Problem(
                type: ProblemType.malformedRequest,
                title: "Malformed request",
                status: 400,
                detail: "the request is not valid HTTP/1.1 (\(error))"
            )
        }
    }
}
