import LocTrackWeb
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// `loctrack-serve` from binding its address to its exit: Hummingbird's server with the
/// limits, the live side beside it, and the signals, driven by ``ServeLifecycle``.
public struct ServeRun: Sendable {
    /// How the live side ended: the exit code and its one line (nil: nothing to say).
    public typealias LiveOutcome = (code: Int32, message: String?)

    public let host: String
    public let port: Int
    public let limits: ServeLimits
    let responder: WebResponder
    let respondToTile: TileFastPath.Respond
    let live: @Sendable () async -> LiveOutcome
    let stop: @Sendable () -> Void

    /// - Parameters:
    ///   - respond: the routes (`WebService.respond(to:)`).
    ///   - respondToTile: the tiles' route on the event loop (`WebService.respondToTile(_:deliver:)`,
    ///     ``TileFastPath``).
    ///   - live: reads gpsd into the hub until it is finished; started once the address
    ///     is bound, so a port in use fails before gpsd is contacted.
    ///   - stop: ends the event streams and the gpsd session (SIGINT, SIGTERM).
    public init(
        host: String, port: Int, limits: ServeLimits = ServeLimits(), respond: @escaping WebResponder.Respond,
        respondToTile: @escaping TileFastPath.Respond,
        live: @escaping @Sendable () async -> LiveOutcome, stop: @escaping @Sendable () -> Void
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.responder = WebResponder(respond)
        self.respondToTile = respondToTile
        self.live = live
        self.stop = stop
    }

    /// `ADDR:PORT` as a user writes it, `[ADDR]:PORT` for IPv6.
    static func hostAndPort(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Runs until SIGINT or SIGTERM (exit 0), or until the address cannot be bound (69),
    /// and exits the process.
    public func run() async -> Never {
        let (events, emit) = AsyncStream.makeStream(of: ServeLifecycle.Event.self)
        var lifecycle = ServeLifecycle(requested: Self.hostAndPort(host, port))
        let server = makeServer { address in emit.yield(.listening(address: address)) }
        let signals: AsyncStream<Int32>
        do {
            signals = try ServerProcess.terminationSignals()
        } catch {
            ServerProcess.printError("loctrack: cannot watch for signals: \(error)")
            ServerProcess.exit(69)
        }
        await withDiscardingTaskGroup { group in
            group.addTask {
                do {
                    try await server.run()
                    emit.yield(.serverEnded(failure: nil))
                } catch {
                    emit.yield(.serverEnded(failure: ListenFailure.describe(error)))
                }
            }
            group.addTask {
                for await signal in signals { emit.yield(.signal(signal)) }
            }
            for await event in events {
                for action in lifecycle.handle(event) {
                    switch action {
                    case .announce(let address):
                        ServerProcess.printError("loctrack serve: listening on http://\(address)/")
                    case .startLive:
                        group.addTask {
                            let outcome = await live()
                            emit.yield(.liveEnded(code: outcome.code, message: outcome.message))
                        }
                    case .stop:
                        stop()
                        group.addTask { try? await server.shutdownGracefully() }
                    case .armDeadline:
                        group.addTask {
                            try? await Task.sleep(for: ServeLifecycle.shutdownGrace)
                            emit.yield(.shutdownDeadline)
                        }
                    case .exit(let code, let message):
                        if let message { ServerProcess.printError(message) }
                        ServerProcess.exit(code)
                    }
                }
            }
        }
        ServerProcess.exit(70)  // not reached: the events never end
    }

    private func makeServer(onListening: @escaping @Sendable (String) -> Void) -> Server<TileChannel> {
        let limits = limits
        let responder = responder
        let logger = Logger(label: "loctrack-serve")
        let connections = ConnectionRegistry(limits: limits)
        let channel = HTTP1Channel(
            responder: { request, writer, channel in
                try await responder.handle(request, writer: writer, channel: channel)
            },
            configuration: .init(
                additionalChannelHandlers: [
                    ConnectionReporter(registry: connections), OversizedHeadResponder(), EventStreamHangUp(),
                    StalledReaderCloser(limit: limits.stalledReader),
                ],
                idleTimeout: limits.headTime,
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: limits.headBytes, maxHeaderListSize: limits.headBytes)))
        let configuration = ServerConfiguration(
            address: .hostname(host, port: port), backlog: limits.backlog, reuseAddress: true,
            availableConnectionsDelegate: GatedAccepting(registry: connections))
        return Server(
            childChannelSetup: TileChannel(channel, respondToTile: respondToTile), configuration: configuration,
            onServerRunning: { channel in
                do {
                    try await ConnectionGate.install(on: channel, registry: connections)
                } catch {
                    // Nothing would ever be accepted: end the server (exit 69 as for a bind
                    // that failed, this line first).
                    ServerProcess.printError("loctrack: cannot set up the connection limit: \(error)")
                    channel.close(promise: nil)
                    return
                }
                // The address bound: with port 0 (the tests), the port the kernel chose.
                let address = channel.localAddress
                onListening(Self.hostAndPort(address?.ipAddress ?? "?", address?.port ?? 0))
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
    }
}
