import Glibc
import LocTrack
import Synchronization
import LocTrackSystem

/// The relay's state and its thread's loop.
final class RelayCore: Sendable {
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
            let client = Loopback.acceptCloseOnExec(listener)
            guard client >= 0 else { return }
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
