import FleetModels
import Foundation
import NIOCore
import NIOHTTP1

/// Keeps the requests of one connection and their answers in step, right after the HTTP/1 parser:
///
/// - **Answers stay in order.** A request the parser refuses, or whose `Host` is missing, repeated or malformed
///   (RFC 9112 §3.2), is answered with a problem body (`400`, `431` for oversized or too many header fields, `501`
///   for an unknown method) only after every request before it on the connection has had its answer; then the
///   connection closes. Pipelined requests ahead of a refused one keep their own answers.
/// - **A request whose body does not arrive whole fails.** When the stream breaks inside a body (a `Content-Length`
///   not reached, a chunked body without its last chunk or with a broken chunk, the client gone), the request's body
///   ends with ``IncompleteRequestBody`` instead of ending as if complete, so no route acts on part of a body,
///   whatever those bytes parse as. Nothing else is answered for it, and the connection closes after its answer.
/// - **A body has `bodyTimeout` from its head to its end**, however steadily it trickles in (the idle timeout cannot
///   catch a byte now and then): a late body ends the same way, with ``IncompleteRequestBody/timedOut`` set, so the
///   route answers `408`, and the connection closes.
/// - **Bytes after a `Connection: close` request are ignored** (RFC 9112 §9.6): that request keeps its answer.
/// - **`Expect: 100-continue` gets `100 Continue`** once the request is next in line to be answered, so a client
///   that waits for it sends its body without a delay.
///
/// It sits between the parser and the rest of the HTTP/1 pipeline, where the request line's version and the raw
/// header fields are still known.
final class RequestFramingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests passed on whose answers have not ended, oldest first; each says whether it waits for
    /// `100 Continue`.
    private var unanswered = CircularBuffer<Bool>()
    /// Whether the newest request passed on is still receiving its body.
    private var bodyOpen = false
    /// What to answer once every earlier request has its answer, then close.
    private var refusal: Problem?
    /// Whether the connection closes once every request passed on has its answer (after a broken body).
    private var closeWhenAnswered = false
    /// Whether inbound bytes are no longer passed on (after a refusal, a broken body or a `Connection: close`).
    private var ignoringInput = false
    /// How long a body may take from its request's head to its end.
    private let bodyTimeout: TimeAmount
    /// When the body being received is late.
    private var bodyDeadline: Scheduled<Void>?

    init(bodyTimeout: TimeAmount) {
        self.bodyTimeout = bodyTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ignoringInput else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let problem = Self.hostProblem(in: head) {
                refuse(problem, context: context)
                return
            }
            let expectsContinue = Self.expectsContinue(head)
            unanswered.append(expectsContinue)
            bodyOpen = true
            if Self.announcesBody(head) {
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                bodyDeadline = context.eventLoop.scheduleTask(in: bodyTimeout) {
                    let (handler, context) = loopBound.value
                    if handler.bodyOpen { handler.breakOffBody(context: context, timedOut: true) }
                }
            }
            if expectsContinue && unanswered.count == 1 {
                sendContinue(context: context)
            }
        case .body:
            break
        case .end:
            bodyOpen = false
            bodyDeadline?.cancel()
            bodyDeadline = nil
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if bodyOpen {
            breakOffBody(context: context)
        } else if error == .closedConnection {
            // Bytes after a request that asked to close the connection: that request is answered, then the
            // connection closes; what followed it is not a request of this connection.
            ignoringInput = true
        } else if !ignoringInput {
            refuse(Self.problem(for: error), context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, bodyOpen {
            breakOffBody(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if bodyOpen {
            breakOffBody(context: context)
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), unanswered.popFirst() != nil else {
            context.write(data, promise: promise)
            return
        }
        guard unanswered.isEmpty, refusal != nil || closeWhenAnswered else {
            context.write(data, promise: promise)
            if unanswered.first == true {
                sendContinue(context: context)
            }
            return
        }
        if refusal == nil {
            // The last answer owed: the connection closes once it is out.
            let promise = promise ?? context.eventLoop.makePromise()
            closeOnCompletion(of: promise.futureResult, context: context)
            context.write(data, promise: promise)
        } else {
            context.write(data, promise: promise)
            writeRefusal(context: context)
        }
    }

    // MARK: - Refusals and broken bodies

    /// Stops reading, and answers `problem` now or after the answers still owed.
    private func refuse(_ problem: Problem, context: ChannelHandlerContext) {
        ignoringInput = true
        refusal = problem
        if unanswered.isEmpty {
            writeRefusal(context: context)
        }
    }

    /// Fails the body of the request being received: the route reading it gets ``IncompleteRequestBody``.
    private func breakOffBody(context: ChannelHandlerContext, timedOut: Bool = false) {
        bodyOpen = false
        bodyDeadline?.cancel()
        bodyDeadline = nil
        ignoringInput = true
        closeWhenAnswered = true
        context.fireErrorCaught(IncompleteRequestBody(timedOut: timedOut))
        if unanswered.isEmpty {
            // The request was answered before its body was complete (a refusal that needs no body).
            context.close(promise: nil)
        }
    }

    /// Writes the refusal and closes the connection once it is out.
    private func writeRefusal(context: ChannelHandlerContext) {
        guard let problem = refusal else { return }
        refusal = nil
        let body = (try? JSONCoding.encoder.encode(problem)) ?? Data()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: Problem.mediaType)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Date", value: HTTPDate.now())
        headers.add(name: "Connection", value: "close")
        let status = HTTPResponseStatus(statusCode: problem.status)
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        closeOnCompletion(of: written.futureResult, context: context)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
    }

    private func closeOnCompletion(of future: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        future.whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    private func sendContinue(context: ChannelHandlerContext) {
        if !unanswered.isEmpty { unanswered[unanswered.startIndex] = false }
        let head = HTTPResponseHead(version: .http1_1, status: .continue)
        context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
    }

    // MARK: - Rules

    /// Whether the request has a body to wait for: a chunked one, or a `Content-Length` above zero.
    static func announcesBody(_ head: HTTPRequestHead) -> Bool {
        if head.headers.contains(name: "transfer-encoding") { return true }
        guard let length = head.headers.first(name: "content-length") else { return false }
        return length != "0"
    }

    /// Whether the request waits for `100 Continue` before sending its body (HTTP/1.1 and later only; RFC 9110
    /// §10.1.1).
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        guard isHTTP11OrLater(head.version), let expect = head.headers.first(name: "expect") else { return false }
        return expect.lowercased() == "100-continue"
    }

    /// The `400` a request gets for its `Host` field (RFC 9112 §3.2): required once in HTTP/1.1, never repeated,
    /// and a host with an optional port; `nil` when the field is fine.
    static func hostProblem(in head: HTTPRequestHead) -> Problem? {
        // Counted by hand: this runs for every request, and looking the field up by name makes an array.
        var count = 0
        var host: String?
        for (name, value) in head.headers where isHostName(name) {
            count += 1
            host = value
        }
        let detail: String
        if count > 1 {
            detail = "the request has \(count) Host fields; send exactly one"
        } else if let host {
            guard !isValidHost(host) else { return nil }
            detail = "the Host field is not a host with an optional port"
        } else {
            guard isHTTP11OrLater(head.version) else { return nil }
            detail = "an HTTP/1.1 request needs a Host field"
        }
        return Problem(type: ProblemType.malformedRequest, title: "Bad Host", status: 400, detail: detail)
    }

    /// Whether a field name is `Host`, in any case.
    private static func isHostName(_ name: String) -> Bool {
        var utf8 = name.utf8.makeIterator()
        for expected in "host".utf8 {
            guard let byte = utf8.next(), byte | 0x20 == expected else { return false }
        }
        return utf8.next() == nil
    }

    private static func isHTTP11OrLater(_ version: HTTPVersion) -> Bool {
        version.major > 1 || (version.major == 1 && version.minor >= 1)
    }

    /// `uri-host [ ":" port ]`: the characters of a registered name, an IPv4 address or an IP literal in brackets,
    /// and the port's digits. No white space.
    static func isValidHost(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                hostPunctuation.contains(byte)
            }
        }
    }

    /// The characters besides letters and digits a host and port may hold (RFC 3986 `reg-name`, `IP-literal`).
    private static let hostPunctuation = Set("-._~%!$&'()*+,;=:[]".utf8)

    static func problem(for error: HTTPParserError) -> Problem {
        switch error {
        case .headerOverflow:
            Problem(
                type: ProblemType.malformedRequest,
                title: "Request header fields too large",
                status: 431,
                detail: "the request line or header fields are longer, or more, than the daemon accepts"
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

/// The error a request's body ends with when the connection breaks before the body is complete, or the body is
/// late: a route that reads the body never sees part of it as the whole.
struct IncompleteRequestBody: Error, CustomStringConvertible {
    /// Whether the body did not end within the body timeout (else the stream broke).
    var timedOut: Bool

    var description: String {
        timedOut ? "the request body did not arrive in time" : "the request body ended before it was complete"
    }
}
