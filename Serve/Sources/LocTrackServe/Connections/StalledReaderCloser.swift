public import NIOCore

/// Closes a connection whose client has stopped reading.
///
/// When the client's TCP window and the kernel's send buffer are full, NIO keeps what is
/// left and the channel turns unwritable past its high-water mark (64 KiB); a writer then
/// waits inside its write, where neither the idle timeout (a response is in progress) nor
/// the event broadcaster's queue limit (the writer is not taking events) can end it. A
/// channel that stays unwritable for `limit` is closed: the waiting write fails, the
/// writer ends, and the memory and the task it held are freed. A client that reads, even
/// slowly, makes the channel writable again well within the limit.
public final class StalledReaderCloser: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny

    private let limit: TimeAmount
    private var closing: Scheduled<Void>?

    public init(limit: TimeAmount) {
        self.limit = limit
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            closing?.cancel()
            closing = nil
        } else if closing == nil {
            closing = context.eventLoop.assumeIsolated().scheduleTask(in: limit) {
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        closing?.cancel()
        closing = nil
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        closing?.cancel()
        closing = nil
    }
}

@available(*, unavailable)
extension StalledReaderCloser: Sendable {}
