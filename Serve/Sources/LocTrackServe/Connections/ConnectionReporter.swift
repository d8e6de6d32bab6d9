import NIOCore
import NIOHTTPTypes

/// Tells the ``ConnectionRegistry`` when its connection turns busy (a whole request head
/// read) and when it waits again (the last answer due written out), so that at the
/// connection limit only a connection waiting for a head gives way to a newcomer.
///
/// Requests may come pipelined: the connection is busy while any head read has not been
/// answered. An answer counts as ended once its end has been handed to the kernel, not
/// when it is queued: a connection closed for a newcomer must not lose an answer's tail.
/// An end with no head before it (the `431` of ``OversizedHeadResponder``, written before
/// any head could be read) changes nothing. It stands first among the handlers after the
/// HTTP codec, so that it sees every part read and every part written.
final class ConnectionReporter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let registry: ConnectionRegistry
    /// Request heads read whose answer's end has not been written yet.
    private var unanswered = 0

    init(registry: ConnectionRegistry) {
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            unanswered += 1
            if unanswered == 1 { registry.requestHeadReceived(on: context.channel) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), unanswered > 0 else {
            context.write(data, promise: promise)
            return
        }
        unanswered -= 1
        guard unanswered == 0 else {
            context.write(data, promise: promise)
            return
        }
        // The last answer due: the connection waits once it is out, unless a head came
        // in the meantime (then it stays busy, and that answer's end reports).
        let written = promise ?? context.eventLoop.makePromise()
        let channel = context.channel
        written.futureResult.assumeIsolated().whenSuccess {
            if self.unanswered == 0 { self.registry.answerEnded(on: channel) }
        }
        context.write(data, promise: written)
    }
}

@available(*, unavailable)
extension ConnectionReporter: Sendable {}
