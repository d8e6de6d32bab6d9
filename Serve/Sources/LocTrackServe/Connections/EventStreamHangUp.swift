public import NIOCore
public import NIOHTTPTypes
import HTTPTypes

/// Closes a connection whose client closed its side while it gets an event stream.
///
/// The server allows half-closed connections (a client may send its request, shut its
/// side and still read the answer), so a client's FIN alone does not close the channel,
/// and an event stream would only notice at its second write after it (the first one
/// draws the reset): up to two keep-alive intervals while no event comes. An event
/// stream's client never sends anything after its request, so its FIN means it is gone:
/// the connection is closed then, and the stream detaches at once.
public final class EventStreamHangUp: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    private var streaming = false
    private var inputClosed = false

    public init() {}

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            streaming = head.headerFields[.contentType]?.hasPrefix("text/event-stream") ?? false
            context.write(data, promise: promise)
            if streaming && inputClosed {
                context.flush()
                context.close(promise: nil)
            }
        case .end:
            streaming = false
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        }
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent {
            inputClosed = true
            if streaming { context.close(promise: nil) }
        }
        context.fireUserInboundEventTriggered(event)
    }
}

@available(*, unavailable)
extension EventStreamHangUp: Sendable {}
