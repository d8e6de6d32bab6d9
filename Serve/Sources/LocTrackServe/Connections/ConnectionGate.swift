import HummingbirdCore
import NIOCore

/// The listening channel's handler that keeps the server accepting at its connection limit
/// (docs/http.md, "Limits"): before each accept it asks the ``ConnectionRegistry`` whether
/// to accept, and every accepted connection is admitted there, in the place of one that has
/// sent the least when the server is full. A connection refused (nobody could give way
/// after all) is closed before anything is read from it.
///
/// While the registry says wait, the gate holds the listening channel's reads back: the
/// newcomers wait in the kernel's accept queue. It asks again on its own event loop when
/// the registry's time comes (a timer), and when a connection closes or an answer ends
/// (the wake it attached: a read on the listening channel, which comes back through here).
final class ConnectionGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = Never
    typealias OutboundOut = Never

    private let registry: ConnectionRegistry
    private var retry: Scheduled<Void>?

    init(registry: ConnectionRegistry) {
        self.registry = registry
    }

    /// Puts a gate first on Hummingbird's listening channel (`onServerRunning`), where it
    /// sees every accepted connection before Hummingbird does, and sets that channel to one
    /// accept per read: NIO accepts up to four per read, and those after the first would
    /// find the server full with nobody to give way, and be closed, instead of waiting
    /// their turn in the kernel's queue.
    static func install(on listening: any Channel, registry: ConnectionRegistry) async throws {
        try await listening.eventLoop.submit {
            try listening.syncOptions?.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
            try listening.pipeline.syncOperations.addHandler(ConnectionGate(registry: registry), position: .first)
        }.get()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let listening = context.channel
        registry.attachAcceptor { listening.read() }
        // Until now Hummingbird's handler held the reads back (``GatedAccepting``).
        listening.read()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelRetry()
        registry.detachAcceptor()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelRetry()
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        cancelRetry()
        switch registry.nextAcceptorStep() {
        case .accept:
            context.read()
        case .wait(let retryIn):
            guard let retryIn else { return }
            let listening = context.channel
            retry = context.eventLoop.scheduleTask(in: TimeAmount(retryIn)) { listening.read() }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let accepted = unwrapInboundIn(data)
        guard registry.admit(accepted) else {
            accepted.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    private func cancelRetry() {
        retry?.cancel()
        retry = nil
    }
}

@available(*, unavailable)
extension ConnectionGate: Sendable {}

/// Hummingbird's hook on the listening channel, the one thing there from the moment it
/// listens: no accept until the ``ConnectionGate`` is in place (Hummingbird offers no way to
/// put a handler of one's own there before it starts accepting), then every read goes on to
/// the gate, which decides. Without it, connections accepted in the moment between the bind
/// and `onServerRunning` would be on no roster.
struct GatedAccepting: AvailableConnectionsDelegate {
    let registry: ConnectionRegistry

    mutating func connectionOpened() {}
    mutating func connectionClosed() {}

    func isAcceptingNewConnections() -> Bool {
        registry.hasAcceptor
    }
}
