import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
@testable import LocTrackServe

/// A clock that moves only when told, for the ``ConnectionRegistry``.
final class ManualClock: Sendable {
    private let offset = Mutex(Duration.zero)
    private let start = ContinuousClock.now

    func now() -> ContinuousClock.Instant {
        start + offset.withLock { $0 }
    }

    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }
}

/// Counts the reads that pass it towards the socket: placed at the head of a listening
/// channel, it shows whether the gate let an accept through.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = Never
    private(set) var reads = 0

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }
}

/// A listening channel on NIO's EmbeddedChannel with a ``ConnectionGate`` and its registry;
/// each accepted connection is an EmbeddedChannel with a ``ConnectionReporter``, handed in
/// as NIO's accept does (a channel read on the listening channel). One clock for the
/// registry and the listening channel's timers.
struct ListeningDouble {
    let channel: EmbeddedChannel
    let counter = ReadCounter()
    let registry: ConnectionRegistry
    let clock = ManualClock()

    init(capacity: Int, grace: Duration = .seconds(1)) throws {
        let clock = clock
        registry = ConnectionRegistry(capacity: capacity, grace: grace, now: { clock.now() })
        channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(ConnectionGate(registry: registry))
    }

    var reads: Int { counter.reads }

    /// A client connects: the new connection goes through the gate. Returns it, and
    /// whether the gate passed it on (to Hummingbird).
    @discardableResult
    func accept() throws -> (connection: EmbeddedChannel, passedOn: Bool) {
        let connection = EmbeddedChannel(handler: ConnectionReporter(registry: registry))
        try connection.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8947)).wait()
        try channel.writeInbound(connection)
        let passed = try channel.readInbound(as: EmbeddedChannel.self)
        return (connection, passed === connection)
    }

    func advance(by duration: Duration) {
        clock.advance(by: duration)
        channel.embeddedEventLoop.advanceTime(by: TimeAmount(duration))
    }

    /// NIO asks for the next accept (as it does after each read).
    func askToAccept() {
        channel.read()
    }
}

extension EmbeddedChannel {
    /// The client closes the connection; the channel's close callbacks run (an
    /// EmbeddedEventLoop runs what was handed to it only when told).
    func clientCloses() throws {
        try close().wait()
        embeddedEventLoop.run()
    }

    /// The client's whole request head, as the decoder hands it on.
    func receiveHead(_ path: String = "/api/status") throws {
        try writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "http", authority: nil, path: path)))
        _ = try readInbound(as: HTTPRequestPart.self)
    }

    /// The answer's end, written and flushed (handed to the kernel).
    func answer() throws {
        try writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try writeOutbound(HTTPResponsePart.end(nil))
    }
}
