import Foundation
import NIOCore
import NIOHTTP1

/// Collects one request at a time, asks the handler for a response, and writes it.
final class TestServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: TestServer.Handler
    private let log: TestServerLog
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var bodyLength = 0
    private let bodyLimit: Int

    init(handler: @escaping TestServer.Handler, log: TestServerLog, bodyLimit: Int) {
        self.handler = handler
        self.log = log
        self.bodyLimit = bodyLimit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            bodyLength = 0
        case .body(var chunk):
            bodyLength += chunk.readableBytes
            if body.readableBytes < bodyLimit,
                var kept = chunk.readSlice(length: min(chunk.readableBytes, bodyLimit - body.readableBytes))
            {
                body.writeBuffer(&kept)
            }
        case .end:
            guard let head else { return }
            let request = TestRequest(
                method: head.method.rawValue,
                target: head.uri,
                headers: head.headers.map { (name: $0.name, value: $0.value) },
                body: Data(body.readableBytesView),
                bodyLength: bodyLength
            )
            log.record(request)
            let keepAlive = head.isKeepAlive
            let handler = self.handler
            let promise = context.eventLoop.makePromise(of: TestResponse.self)
            promise.completeWithTask { await handler(request) }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { response in
                let (this, context) = bound.value
                this.write(response, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func write(_ response: TestResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        switch response.body {
        case .data(let data):
            headers.replaceOrAdd(name: "Content-Length", value: "\(data.count)")
        case .chunks:
            headers.remove(name: "Content-Length")
        case .generated(_, let count):
            headers.replaceOrAdd(name: "Content-Length", value: "\(count)")
        case .stall(_, let declaredLength):
            headers.replaceOrAdd(name: "Content-Length", value: "\(declaredLength)")
        }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(
            version: .http1_1,
            status: HTTPResponseStatus(statusCode: response.status),
            headers: headers
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        switch response.body {
        case .data(let data):
            if !data.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: data)))), promise: nil)
            }
            finish(keepAlive: keepAlive, context: context)
        case .chunks(let chunks):
            for chunk in chunks {
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chunk)))), promise: nil)
            }
            finish(keepAlive: keepAlive, context: context)
        case .generated(let byte, let count):
            context.flush()
            writeGenerated(byte: byte, remaining: count, keepAlive: keepAlive, context: context)
        case .stall(let prefix, _):
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: prefix)))), promise: nil)
        }
    }

    private func writeGenerated(byte: UInt8, remaining: Int64, keepAlive: Bool, context: ChannelHandlerContext) {
        guard remaining > 0 else {
            finish(keepAlive: keepAlive, context: context)
            return
        }
        let size = Int(min(remaining, 64 * 1024))
        let chunk = ByteBuffer(repeating: byte, count: size)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).whenSuccess {
            let (this, context) = bound.value
            this.writeGenerated(byte: byte, remaining: remaining - Int64(size), keepAlive: keepAlive, context: context)
        }
    }

    private func finish(keepAlive: Bool, context: ChannelHandlerContext) {
        let closes = !keepAlive
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if closes { bound.value.close(promise: nil) }
        }
    }
}
