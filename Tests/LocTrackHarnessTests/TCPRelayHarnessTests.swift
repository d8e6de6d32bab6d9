import Glibc
import LocTrack
import LocTrackTestSupport
import Testing
import LocTrackSystem

/// The ``TCPRelay`` harness itself, with plain loopback sockets on both sides: what the
/// network-drop tests rely on (bytes pass both ways; a cut resets both ends and the next
/// connection works; a blackhole holds bytes back without closing; a refused connection
/// is reset) is checked here without a broker or loctrack.
@Suite("TCP relay harness: a network a test can break", .serialized, .timeLimit(.minutes(1)))  // its waits block a thread: one at a time
struct TCPRelayHarnessTests {
    @Test("given a relay to a server when a client sends and the server answers then each side gets the other's bytes", .timeLimit(.minutes(1)))
    func bytesPassBothWays() async throws {
        let server = try TestServer()
        try await withTCPRelay(to: server.port) { relay in
            let connection = try TestConnection(relay: relay, server: server)
            #expect(connection.client.send("CONNECT") && connection.server.receive() == .bytes("CONNECT"))
            #expect(connection.server.send("CONNACK") && connection.client.receive() == .bytes("CONNACK"))
            #expect(relay.acceptedConnections == 1 && relay.relayedConnections == 1)
        }
    }

    @Test("given a relayed connection when cut() then both ends see a reset, and a new connection through the relay works", .timeLimit(.minutes(1)))
    func cutResetsBothEndsAndKeepsListening() async throws {
        let server = try TestServer()
        try await withTCPRelay(to: server.port) { relay in
            let first = try TestConnection(relay: relay, server: server)
            relay.cut()
            #expect(first.client.receive() == .reset)
            #expect(first.server.receive() == .reset)

            let second = try TestConnection(relay: relay, server: server)
            #expect(second.client.send("again") && second.server.receive() == .bytes("again"))
            #expect(relay.acceptedConnections == 2)
        }
    }

    @Test("given a relayed connection when blackholed then neither side gets anything nor sees an end, and what was sent arrives once it ends", .timeLimit(.minutes(1)))
    func blackholeHoldsBytesBack() async throws {
        let server = try TestServer()
        try await withTCPRelay(to: server.port) { relay in
            let connection = try TestConnection(relay: relay, server: server)
            relay.blackhole(true)
            #expect(connection.client.send("ping") && connection.server.send("pong"))
            #expect(connection.server.receive(within: 300) == .nothing)
            #expect(connection.client.receive(within: 10) == .nothing)

            relay.blackhole(false)
            #expect(connection.server.receive() == .bytes("ping"))
            #expect(connection.client.receive() == .bytes("pong"))
        }
    }

    @Test("given a relay blackholing toward the client only when both sides send then the server gets the client's bytes and the client gets nothing", .timeLimit(.minutes(1)))
    func blackholeTowardTheClientOnly() async throws {
        let server = try TestServer()
        try await withTCPRelay(to: server.port) { relay in
            let connection = try TestConnection(relay: relay, server: server)
            relay.blackhole(true, direction: .toClient)
            #expect(connection.client.send("PUBLISH") && connection.server.receive() == .bytes("PUBLISH"))
            #expect(connection.server.send("PUBACK") && connection.client.receive(within: 300) == .nothing)
        }
    }

    @Test("given refuseConnections(true) when a client connects then it is reset and never reaches the server; after refuseConnections(false) it does", .timeLimit(.minutes(1)))
    func refusedConnectionsAreReset() async throws {
        let server = try TestServer()
        try await withTCPRelay(to: server.port) { relay in
            relay.refuseConnections(true)
            let refused = try TestSocket(connectingTo: relay.port)
            #expect(refused.receive() == .reset)
            #expect(server.accept(within: 100) == nil)
            #expect(relay.acceptedConnections == 1 && relay.refusedConnections == 1 && relay.relayedConnections == 0)

            relay.refuseConnections(false)
            let connection = try TestConnection(relay: relay, server: server)
            #expect(connection.client.send("up") && connection.server.receive() == .bytes("up"))
        }
    }
}

// MARK: - Plain sockets for the relay's tests

/// One connected socket; every wait is bounded by `poll()`.
private final class TestSocket: Sendable {
    enum Received: Equatable {
        case bytes(String)
        /// The peer closed (EOF) or reset the connection.
        case reset
        case nothing
    }

    let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    convenience init(connectingTo port: Int) throws {
        guard let descriptor = Loopback.connect(port: port) else { throw HarnessError("connect to \(port): \(Errno.current)") }
        self.init(descriptor: descriptor)
    }

    deinit { close(descriptor) }

    func send(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == text.utf8.count
    }

    /// What arrives within `milliseconds` (one read).
    func receive(within milliseconds: Int32 = 2_000) -> Received {
        guard (try? pollOne(descriptor, events: .readable, milliseconds: milliseconds)) ?? [] != [] else { return .nothing }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count > 0 ? .bytes(String(decoding: buffer[..<count], as: UTF8.self)) : .reset
    }
}

/// A listening socket that plays the broker.
private final class TestServer: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws { (descriptor, port) = try Loopback.listen() }

    deinit { close(descriptor) }

    func accept(within milliseconds: Int32 = 2_000) -> TestSocket? {
        guard (try? pollOne(descriptor, events: .readable, milliseconds: milliseconds)) ?? [] != [] else { return nil }
        let fd = Glibc.accept(descriptor, nil, nil)
        return fd >= 0 ? TestSocket(descriptor: fd) : nil
    }
}

/// A client connected through the relay, and the server's end of that connection.
private struct TestConnection {
    let client: TestSocket
    let server: TestSocket

    init(relay: TCPRelay, server listener: TestServer) throws {
        client = try TestSocket(connectingTo: relay.port)
        guard let server = listener.accept() else { throw HarnessError("the relay did not connect to the server") }
        self.server = server
    }
}
