import Glibc
import LocTrack
import Synchronization

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

/// The relay's state and its thread's loop.
private final class RelayCore: Sendable {
    /// One relayed connection, and what was read from one end but not yet written to the other.
    struct Link {
        let client: Int32
        let server: Int32
        var toServer: [UInt8] = []
        var toClient: [UInt8] = []
    }

    struct State {
        var links: [Link] = []
        var accepted = 0
        var refused = 0
        var dropsToServer = false
        var dropsToClient = false
        var refusing = false
        var stopping = false
    }

    let listener: Int32
    let targetPort: Int
    let wakeUps: WakeUpPipe
    let state = Mutex(State())

    init(listener: Int32, targetPort: Int, wakeUps: WakeUpPipe) {
        self.listener = listener
        self.targetPort = targetPort
        self.wakeUps = wakeUps
    }

    func run() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            // What to wait for: a side is read only when its bytes can go on (nothing
            // pending, no blackhole), and written only when something is pending.
            guard var descriptors = state.withLock({ state -> [pollfd]? in
                if state.stopping { return nil }
                return [Self.poll(wakeUps.readDescriptor, read: true), Self.poll(listener, read: true)] + state.links.flatMap { link in [
                    Self.poll(link.client, read: link.toServer.isEmpty && !state.dropsToServer, write: !link.toClient.isEmpty && !state.dropsToClient),
                    Self.poll(link.server, read: link.toClient.isEmpty && !state.dropsToClient, write: !link.toServer.isEmpty && !state.dropsToServer),
                ] }
            }) else { return }
            _ = Glibc.poll(&descriptors, nfds_t(descriptors.count), -1)
            if descriptors[0].revents != 0 { wakeUps.drain() }
            let ready = Dictionary(descriptors.map { ($0.fd, $0) }, uniquingKeysWith: { first, _ in first })
            state.withLock { state in
                // Only links polled above and still open: a cut() during the poll removed its
                // links, and links accepted below are polled next time (their descriptors may
                // reuse numbers the cut closed).
                state.links = state.links.compactMap { link in
                    guard let client = ready[link.client], let server = ready[link.server] else { return link }
                    var link = link
                    let open = Self.move(client, into: &link.toServer, to: link.server, dropping: state.dropsToServer, &buffer)
                        && Self.move(server, into: &link.toClient, to: link.client, dropping: state.dropsToClient, &buffer)
                    if !open { Loopback.reset(link.client); Loopback.reset(link.server) }
                    return open ? link : nil
                }
                if ready[listener]?.revents ?? 0 != 0 { accept(into: &state) }
            }
        }
    }

    private static func poll(_ fd: Int32, read: Bool, write: Bool = false) -> pollfd {
        pollfd(fd: fd, events: Int16((read ? POLLIN : 0) | (write ? POLLOUT : 0)), revents: 0)
    }

    /// Reads what `source` has into `pending` and writes `pending` to `target`; false when
    /// the connection is over (EOF, an error, a reset), which the relay passes on as a reset.
    private static func move(_ source: pollfd, into pending: inout [UInt8], to target: Int32, dropping: Bool, _ buffer: inout [UInt8]) -> Bool {
        if source.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            guard source.events & Int16(POLLIN) != 0 else { return false }  // gone while not being read
            let count = buffer.withUnsafeMutableBytes { recv(source.fd, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return false }
            if count > 0 { pending += buffer[..<count] }
        }
        guard !pending.isEmpty, !dropping else { return true }
        let written = pending.withUnsafeBytes { send(target, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written < 0 { return errno == EAGAIN || errno == EINTR }
        pending.removeFirst(written)
        return true
    }

    /// Accepts every waiting connection: reset at once while refusing, otherwise paired with a new connection to the target.
    private func accept(into state: inout State) {
        while true {
            let client = Glibc.accept(listener, nil, nil)  // (accept4 is a GNU extension Glibc does not import)
            guard client >= 0 else { return }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            state.accepted += 1
            if state.refusing {
                state.refused += 1
                Loopback.reset(client)
                continue
            }
            guard let server = Loopback.connect(port: targetPort) else {
                Loopback.reset(client)
                continue
            }
            // The relay adds no Nagle delay: small MQTT packets go on at once, as they would without it.
            var on: Int32 = 1
            for fd in [client, server] { _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) }
            for fd in [client, server] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            state.links.append(Link(client: client, server: server))
        }
    }
}

/// Runs `body` with a relay to `targetPort` (see ``TCPRelay``), always stopped afterwards.
package func withTCPRelay<Result>(to targetPort: Int, _ body: (TCPRelay) async throws -> Result) async throws -> Result {
    let relay = try TCPRelay(to: targetPort)
    defer { relay.stop() }
    return try await body(relay)
}
