import HTTPTypes
public import LocTrackWeb
public import NIOCore
public import NIOHTTPTypes

/// Answers tile requests (`/tiles/…`) on the connection's event loop, so that a chart's tiles
/// are served at a static server's pace: a tile in memory never leaves the loop, and one
/// read from its file comes back to it from the chart reader thread (`EventLoop.execute`).
/// Every other request goes on to Hummingbird's handler, a task on Swift's pool, as before:
/// for a tile that hop there and back cost more than the tile itself.
///
/// It sits after Hummingbird's connection state handler (``TileChannel`` puts it there), so
/// that handler counts a tile request and its answer as any other (its idle timeout, its
/// quiescing at shutdown), as do the connection limits before it.
///
/// Order is kept: a tile request is answered here only when no earlier request is still
/// being answered by Hummingbird (else it goes there too); while a tile is being read,
/// what the client sends next waits, and reading from the socket stops.
public final class TileFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    /// What answers a tile request (`WebService.respondToTile(_:deliver:)`); false: not a tile's.
    public typealias Respond = @Sendable (WebRequest, _ deliver: @escaping @Sendable (WebResponse) -> Void) -> Bool

    private let respond: Respond
    /// Requests handed on to Hummingbird whose answer has not ended yet.
    private var handedOn = 0
    /// A tile request whose head came, waiting for its end.
    private var pending: (request: WebRequest, method: HTTPRequest.Method)?
    /// A tile is being read: what comes meanwhile waits in ``held``.
    private var answering = false
    private var held: [HTTPRequestPart] = []
    /// A read from the socket asked for while answering, to ask for once done.
    private var readWanted = false

    public init(respond: @escaping Respond) {
        self.respond = respond
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if answering {
            held.append(part)
        } else {
            take(part, context: context)
        }
    }

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            if handedOn == 0, let request = Self.tileRequest(head) {
                pending = (request, head.method)
            } else {
                handedOn += 1
                context.fireChannelRead(wrapInboundOut(part))
            }
        case .body:
            // A tile request has no body (else it is handed on): this is another's.
            context.fireChannelRead(wrapInboundOut(part))
        case .end:
            guard let (request, method) = pending else { return context.fireChannelRead(wrapInboundOut(part)) }
            pending = nil
            answer(request, method: method, context: context)
        }
    }

    /// A tile request this handler answers: GET or HEAD under `/tiles/`, without a body,
    /// and not asking to close (Hummingbird closes after those).
    static func tileRequest(_ head: HTTPRequest) -> WebRequest? {
        guard head.method == .get || head.method == .head, let path = head.path,
              path.hasPrefix("/tiles/"), head.headerFields[.connection] == nil else { return nil }
        let request = WebRequest(head)
        return request.hasBody ? nil : request
    }

    private func answer(_ request: WebRequest, method: HTTPRequest.Method, context: ChannelHandlerContext) {
        answering = true
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let handled = respond(request) { response in
            if loop.inEventLoop {
                let (handler, context) = bound.value
                handler.write(response, method: method, context: context)
            } else {
                loop.execute {
                    let (handler, context) = bound.value
                    handler.write(response, method: method, context: context)
                }
            }
        }
        // Not a tile's after all (cannot be: checked above); Hummingbird answers it then.
        if !handled { fatalError("respondToTile refused a path under /tiles/") }
    }

    private func write(_ response: WebResponse, method: HTTPRequest.Method, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return finishAnswer(context: context) }
        context.write(wrapOutboundOut(.head(response.head(method: method))), promise: nil)
        if method != .head, case .bytes(let bytes) = response.body, !bytes.isEmpty {
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: bytes))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        finishAnswer(context: context)
    }

    /// The answer is out: what waited is taken in order, and reading resumes.
    private func finishAnswer(context: ChannelHandlerContext) {
        answering = false
        while !answering, !held.isEmpty {
            take(held.removeFirst(), context: context)
        }
        if !answering, readWanted {
            readWanted = false
            context.read()
        }
    }

    public func read(context: ChannelHandlerContext) {
        if answering {
            readWanted = true
        } else {
            context.read()
        }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), handedOn > 0 { handedOn -= 1 }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension TileFastPath: Sendable {}
