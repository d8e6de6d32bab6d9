public import NIOCore
public import NIOHTTPTypes
import HTTPTypes
import NIOHTTP1

/// Answers a request head larger than the decoder's limit with `431 Request Header Fields
/// Too Large` (docs/http.md, "Limits"), then closes the connection.
///
/// NIO's decoder reports the overflow as an error, which Hummingbird answers with a plain
/// `400`. This handler sits between the decoder and Hummingbird, takes that one error
/// and answers it, when no earlier request on the connection is still being answered
/// (its answer would be cut in two); otherwise it only closes. Every other decoder error
/// goes on to Hummingbird (`400`).
public final class OversizedHeadResponder: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    static let reason: [UInt8] = Array("request head too large\n".utf8)

    /// Request heads read whose answer has not ended yet.
    private var unanswered = 0

    public init() {}

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { unanswered += 1 }
        context.fireChannelRead(data)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered -= 1 }
        context.write(data, promise: promise)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, parserError == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        guard unanswered == 0 else {
            context.close(promise: nil)
            return
        }
        unanswered = -1  // nothing more is answered on this connection
        let head = HTTPResponse(status: .requestHeaderFieldsTooLarge, headerFields: [
            .contentType: "text/plain; charset=utf-8",
            .contentLength: String(Self.reason.count),
            .connection: "close",
            .cacheControl: "no-store",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: Self.reason))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        ConnectionClosing.closeAfterAnswer(context.channel)
    }
}

@available(*, unavailable)
extension OversizedHeadResponder: Sendable {}
