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
    /// The generated body being sent, if any.
    private var generated: GeneratedBody?
    /// Whether ``writeGeneratedPieces(context:)`` is running (a flush can re-enter it through writability).
    private var writingGenerated = false
    /// Whether a continuation of the generated body waits on the event loop.
    private var turnScheduled = false

    /// The size of each piece of a generated body.
    static let generatedPieceSize = 64 * 1024
    /// Pieces written in one turn of the event loop while the client keeps up (1 MiB).
    static let generatedPiecesPerTurn = 16

    /// A generated body being sent: one piece of its byte, reused for every write, and what is left.
    private struct GeneratedBody {
        var piece: ByteBuffer
        var remaining: Int64
        var keepAlive: Bool
    }

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
        guard !response.closesConnection else {
            context.close(promise: nil)
            return
        }
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
        case .stream:
            headers.remove(name: "Content-Length")
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
            startGenerated(byte: byte, count: count, keepAlive: keepAlive, context: context)
        case .stall(let prefix, _):
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: prefix)))), promise: nil)
        case .stream(let chunks):
            context.flush()
            writeStream(chunks, keepAlive: keepAlive, context: context)
        }
    }

    /// Writes the chunks of a streamed body as they come, each once the one before has been written, then ends
    /// the response. A closed connection stops it.
    private func writeStream(_ chunks: AsyncStream<Data>, keepAlive: Bool, context: ChannelHandlerContext) {
        let eventLoop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: eventLoop)
        Task {
            for await chunk in chunks {
                let written = eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
                    let (this, context) = bound.value
                    guard context.channel.isActive else {
                        return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
                    }
                    let part = this.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chunk))))
                    return context.writeAndFlush(part)
                }
                do {
                    try await written.get()
                } catch {
                    return
                }
            }
            eventLoop.execute {
                let (this, context) = bound.value
                guard context.channel.isActive else { return }
                this.finish(keepAlive: keepAlive, context: context)
            }
        }
    }

    /// Starts sending a generated body: as many pieces as the channel takes while it is writable, then more when
    /// it becomes writable again.
    ///
    /// The pieces are written in a loop driven by the channel's writability, not from each write's completion: a
    /// write the kernel takes at once completes at once, and its callback would run inline, so chaining the next
    /// write from it recursed one level per piece for as long as the client kept up, each frame keeping its piece
    /// alive (hundreds of MiB, once the whole 1 GiB body), until a write had to wait.
    private func startGenerated(byte: UInt8, count: Int64, keepAlive: Bool, context: ChannelHandlerContext) {
        generated = GeneratedBody(
            piece: ByteBuffer(repeating: byte, count: Int(min(count, Int64(Self.generatedPieceSize)))),
            remaining: count,
            keepAlive: keepAlive
        )
        writeGeneratedPieces(context: context)
    }

    /// Writes pieces of the generated body while the channel is writable, at most ``generatedPiecesPerTurn`` before
    /// it lets the event loop serve other connections.
    private func writeGeneratedPieces(context: ChannelHandlerContext) {
        // A flush inside the loop can report writability at once; the loop itself looks at it again.
        guard !writingGenerated else { return }
        writingGenerated = true
        defer { writingGenerated = false }
        var written = 0
        while var body = generated, context.channel.isActive, context.channel.isWritable {
            guard body.remaining > 0 else {
                generated = nil
                finish(keepAlive: body.keepAlive, context: context)
                return
            }
            guard written < Self.generatedPiecesPerTurn else {
                scheduleGeneratedTurn(context: context)
                return
            }
            let size = Int(min(body.remaining, Int64(body.piece.readableBytes)))
            // A slice shares the piece's storage: no copy, no allocation per piece.
            let piece = body.piece.getSlice(at: body.piece.readerIndex, length: size) ?? body.piece
            body.remaining -= Int64(size)
            generated = body
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(piece))), promise: nil)
            written += 1
        }
    }

    /// Continues the generated body on the next turn of the event loop.
    private func scheduleGeneratedTurn(context: ChannelHandlerContext) {
        guard !turnScheduled else { return }
        turnScheduled = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (this, context) = bound.value
            this.turnScheduled = false
            this.writeGeneratedPieces(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, generated != nil { writeGeneratedPieces(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        generated = nil
        context.fireChannelInactive()
    }

    private func finish(keepAlive: Bool, context: ChannelHandlerContext) {
        let closes = !keepAlive
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if closes { bound.value.close(promise: nil) }
        }
    }
}
