import Glibc
import LocTrack
import Synchronization
import LocTrackSystem

/// A network between a client (loctrack) and a server (the broker) that a test can break:
/// a TCP relay on a free loopback port that forwards each accepted connection to
/// `127.0.0.1:targetPort`, byte for byte, in both directions.
///
/// - ``cut()``: every relayed connection is reset (SO_LINGER 0, so both ends get an RST,
///   as when a NAT or a router forgets the connection); the relay keeps listening, so the
///   client can reconnect.
/// - ``blackhole(_:direction:)``: bytes stop moving but the sockets stay open, as on a
///   network that silently drops packets; nothing tells either end. What was sent
///   meanwhile waits in the kernel's buffers and flows once the blackhole ends.
/// - ``refuseConnections(_:)``: a new connection is accepted and reset at once (the
///   network is still down when the client tries again).
///
/// One thread of its own sleeps in `poll()` on the listener, every relayed socket and a
/// wake-up pipe: no sleeping loops. The controls change the state under the lock; the
/// thread touches sockets only under the same lock (except inside `poll()`), so once a
/// control returns, no byte moves against it. ``stop()`` (also run by `deinit`) joins the
/// thread and closes everything.
package final class TCPRelay: Sendable {
    package enum Direction: Sendable {
        /// Both ways.
        case both
        /// From the server to the client only (e.g. the broker's PUBACKs).
        case toClient
    }

    /// The port clients connect to.
    package let port: Int
    /// What the thread uses; the thread holds it, not `self`, so a relay nobody holds is deinitialised, and stops.
    private let core: RelayCore
    private let thread = Mutex<pthread_t?>(nil)

    /// Listens on a free loopback port and starts the thread.
    package init(to targetPort: Int) throws {
        let wakeUps = try WakeUpPipe()
        let listener: Int32
        (listener, port) = try Loopback.listen()
        core = RelayCore(listener: listener, targetPort: targetPort, wakeUps: wakeUps)
        // A joinable thread (LocTrack's startThread detaches), which holds the core until it ends.
        let body = Unmanaged.passRetained(core)
        var id = pthread_t()
        let started = pthread_create(&id, nil, { context in
            context.map { Unmanaged<RelayCore>.fromOpaque($0).takeRetainedValue().run() }
            return nil
        }, body.toOpaque())
        guard started == 0 else {
            body.release()
            close(listener)
            throw HarnessError("relay thread: pthread_create failed")
        }
        thread.withLock { $0 = id }
    }

    deinit { stop() }

    /// Connections accepted so far, refused ones included.
    package var acceptedConnections: Int { core.state.withLock { $0.accepted } }
    /// Connections reset at once by ``refuseConnections(_:)``.
    package var refusedConnections: Int { core.state.withLock { $0.refused } }
    /// Connections that were relayed to the target.
    package var relayedConnections: Int { core.state.withLock { $0.accepted - $0.refused } }

    /// Resets every relayed connection (an RST to both ends); new connections are relayed as before.
    package func cut() {
        core.state.withLock { state in
            for link in state.links { Loopback.reset(link.client); Loopback.reset(link.server) }
            state.links = []
        }
        core.wakeUps.wake()
    }

    /// Stops (`true`) or resumes (`false`) moving bytes, keeping every socket open.
    package func blackhole(_ dropping: Bool, direction: Direction = .both) {
        core.state.withLock { state in
            state.dropsToClient = dropping
            if direction == .both { state.dropsToServer = dropping }
        }
        core.wakeUps.wake()
    }

    /// While `true`, every new connection is accepted and reset at once.
    package func refuseConnections(_ refusing: Bool) {
        core.state.withLock { $0.refusing = refusing }
    }

    /// Ends the thread (joined) and closes the listener and every connection. Idempotent.
    package func stop() {
        core.state.withLock { $0.stopping = true }
        core.wakeUps.wake()
        guard let id = thread.withLock({ id in defer { id = nil }; return id }) else { return }
        pthread_join(id, nil)
        core.state.withLock { state in
            for link in state.links { close(link.client); close(link.server) }
            state.links = []
        }
        close(core.listener)
    }
}

/// Runs `body` with a relay to `targetPort` (see ``TCPRelay``), always stopped afterwards.
package func withTCPRelay<Result>(to targetPort: Int, _ body: (TCPRelay) async throws -> Result) async throws -> Result {
    let relay = try TCPRelay(to: targetPort)
    defer { relay.stop() }
    return try await body(relay)
}
