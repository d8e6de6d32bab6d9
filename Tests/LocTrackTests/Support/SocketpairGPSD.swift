import Glibc
@testable import LocTrack
import Synchronization
import LocTrackSystem
import LocTrackTestSupport
@testable import LocTrackFormats
@testable import LocTrackSinks

/// A gpsd played by the test, over socketpairs: a ``GPSDConnector`` whose every
/// `connect(to:)` makes a `socketpair(AF_UNIX, SOCK_STREAM)`, gives the reader one
/// end as its transport and keeps the other as a ``Peer`` for the test to write
/// gpsd's lines on, read loctrack's commands from, and close.
///
/// Connects can be scripted in advance (``plan(_:)``): refused, blocked until
/// ``releaseBlockedConnects()`` (a gpsd whose `connect()` never completes), or
/// answered by a peer that chatters on a thread of its own (a peer that is not gpsd).
/// Everything the test waits for is polled with short sleeps and a deadline, so a
/// broken reader fails the test instead of hanging it.
final class SocketpairGPSD: GPSDConnector {
    enum Plan: Sendable {
        /// Connect at once (what an unplanned connect does).
        case accept
        /// Fail with `.cannotConnect` and this reason.
        case refuse(String)
        /// Block until ``releaseBlockedConnects()``, then connect.
        case block
        /// Connect, and write `line` (with its newline) every `interval` from a thread of its
        /// own until loctrack hangs up: a peer that talks but is not gpsd, whatever the test
        /// tasks are doing.
        case chatter(String, every: Duration)
    }

    private struct State {
        var plans: [Plan] = []
        var peers: [Peer] = []
        var attempts = 0
        var blocked = 0
    }

    private let state = Mutex(State())
    /// Blocked connects sleep on this pipe's read end; closing its write end wakes them all, for good.
    private let gateRead: Int32
    private let gateWrite: Mutex<Int32>

    init() {
        // Close-on-exec: a child another test starts meanwhile must not hold the write end,
        // or closing it here would wake nobody until that child ends.
        let ends = try! makeRawPipe()
        gateRead = ends.read
        gateWrite = Mutex(ends.write)
    }

    deinit {
        releaseBlockedConnects()
        close(gateRead)
    }

    /// How the next connects go, in order; connects beyond the plan are accepted.
    func plan(_ plans: Plan...) {
        state.withLock { $0.plans += plans }
    }

    /// How many times the reader called `connect(to:)`.
    var attempts: Int { state.withLock { $0.attempts } }

    /// How many connects are blocked or were blocked (``Plan/block``).
    var blockedConnects: Int { state.withLock { $0.blocked } }

    /// Lets every blocked connect (and every later one planned to block) go on.
    func releaseBlockedConnects() {
        gateWrite.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    func connect(to source: GPSDSource) throws(LocTrackError) -> any GPSDTransport {
        let plan = state.withLock { state -> Plan in
            state.attempts += 1
            return state.plans.isEmpty ? .accept : state.plans.removeFirst()
        }
        switch plan {
        case .accept, .chatter:
            break
        case .refuse(let reason):
            throw LocTrackError(.cannotConnect, source: source, reason: reason)
        case .block:
            state.withLock { $0.blocked += 1 }
            _ = try? pollOne(gateRead, events: .readable, milliseconds: 60_000)
        }
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw LocTrackError(.cannotConnect, source: source, failedCall: "socketpair", .current)
        }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        let peer = Peer(descriptor: ends[1])
        state.withLock { $0.peers.append(peer) }
        if case .chatter(let line, let interval) = plan {
            let bytes = Array((line + "\n").utf8)
            try? startThread(named: "test-chatter") {
                while peer.writeIfPossible(bytes) { usleep(useconds_t(interval.milliseconds * 1000)) }
            }
        }
        return SocketTransport(descriptor: ends[0], source: source)
    }

    /// The peer of the `index`th connection (from 0), once the reader has made it.
    func peer(_ index: Int = 0, within limit: Duration = .seconds(20)) async throws -> Peer {
        try await eventually("connection \(index)", within: limit) {
            state.withLock { $0.peers.count > index ? $0.peers[index] : nil }
        }
    }

    /// Waits until a connect is blocked (``Plan/block``).
    func waitForBlockedConnect(within limit: Duration = .seconds(20)) async throws {
        _ = try await eventually("a blocked connect", within: limit) { blockedConnects > 0 ? true : nil }
    }
}

/// The same gpsd on a loopback TCP port, for a loctrack process (``SocketpairGPSD`` is for the
/// library in this process): every connection accepted becomes a ``Peer`` the test plays gpsd on.
///
/// As gpsd does, a thread of its own accepts each connection and writes the VERSION `banner` at
/// once: loctrack gives a peer 2 s for it, and a test task that accepted and wrote it itself
/// could be held longer than that on a loaded machine (seen once in CI: loctrack had hung up
/// for want of a banner when the test wrote its reports).
final class LoopbackGPSD: Sendable {
    let port: Int
    private let acceptor: Acceptor

    /// What the thread shares with the test: the peers it accepted, and when to stop.
    private final class Acceptor: Sendable {
        let peers = Mutex<[Peer]>([])
        let stopped = Atomic(false)
    }

    init(banner: String = Peer.banner) throws {
        let listener: Int32
        (listener, port) = try Loopback.listen()
        let acceptor = Acceptor()
        self.acceptor = acceptor
        let bannerLine = Array((banner + "\n").utf8)
        do {
            try startThread(named: "test-gpsd-accept") {
                defer { close(listener) }
                while !acceptor.stopped.load(ordering: .acquiring) {
                    guard let ready = try? pollOne(listener, events: .readable, milliseconds: 50), !ready.isEmpty else { continue }
                    let descriptor = Loopback.acceptCloseOnExec(listener)
                    guard descriptor >= 0 else { continue }
                    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                    let peer = Peer(descriptor: descriptor)
                    _ = peer.writeIfPossible(bannerLine)  // a fresh socket takes a banner whole
                    acceptor.peers.withLock { $0.append(peer) }
                }
            }
        } catch {
            close(listener)
            throw error
        }
    }

    deinit { acceptor.stopped.store(true, ordering: .releasing) }

    /// What loctrack is given as its source.
    var sourceArgument: String { "127.0.0.1:\(port)" }

    /// The peer of the `index`th connection (from 0), once loctrack has connected and been
    /// sent the banner.
    func peer(_ index: Int = 0, within limit: Duration = .seconds(20)) async throws -> Peer {
        try await eventually("connection \(index)", within: limit) {
            acceptor.peers.withLock { $0.count > index ? $0[index] : nil }
        }
    }
}

/// The reader's end of a socketpair.
private final class SocketTransport: GPSDTransport {
    let descriptor: Int32
    let source: GPSDSource

    init(descriptor: Int32, source: GPSDSource) {
        self.descriptor = descriptor
        self.source = source
    }

    deinit { close(descriptor) }

    func send(_ command: String) throws(LocTrackError) {
        if let error = sendAll(descriptor, Array(command.utf8)) {
            throw LocTrackError(.connectionLost, source: source, failedCall: "send", error)
        }
    }
}

/// The test's end of one connection: it plays gpsd.
final class Peer: Sendable {
    /// What the peer received and not yet handed out as commands.
    private struct State {
        var descriptor: Int32
        var received: [UInt8] = []
        var sawEndOfFile = false
    }

    private let state: Mutex<State>

    init(descriptor: Int32) {
        state = Mutex(State(descriptor: descriptor))
    }

    deinit { state.withLock { if $0.descriptor >= 0 { Glibc.close($0.descriptor) } } }

    /// gpsd 3.22's VERSION banner.
    static let banner = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#

    /// Writes `lines`, each with its newline, in one write (as far as the socket takes it).
    func send(_ lines: [String]) async throws {
        try await write(lines.map { $0 + "\n" }.joined())
    }

    func send(_ lines: String...) async throws {
        try await send(lines)
    }

    /// Writes exactly `text` (a partial line, garbage, …): everything, waiting while the socket is full.
    func write(_ text: String) async throws {
        try await write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) async throws {
        var offset = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while offset < bytes.count {
            switch sendNow(bytes[offset...]) {
            case .success(0):
                guard ContinuousClock.now < deadline else { throw ScriptError("the reader did not read for 10 s") }
                try await Task.sleep(for: .milliseconds(1))
            case .success(let written):
                offset += written
            case .failure(let error):
                throw ScriptError("send: \(error)")
            }
        }
    }

    /// Writes what the socket takes of `bytes` now, without waiting; false once loctrack
    /// hung up or the peer was closed.
    func writeIfPossible(_ bytes: [UInt8]) -> Bool {
        if case .success = sendNow(bytes[...]) { return true }
        return false
    }

    /// One non-blocking `send`: the bytes it took (0 when the socket is full), or why it failed.
    private func sendNow(_ bytes: ArraySlice<UInt8>) -> Result<Int, Errno> {
        state.withLock { state in
            guard state.descriptor >= 0 else { return .failure(Errno(code: EBADF)) }
            let sent = bytes.withUnsafeBytes { chunk in
                Result { () throws(Errno) in
                    try valueOrErrno { Glibc.send(state.descriptor, chunk.baseAddress, chunk.count, Int32(MSG_NOSIGNAL)) }
                }
            }
            if case .failure(.wouldBlock) = sent { return .success(0) }
            return sent
        }
    }

    /// The next command loctrack sent (a line without its newline), waiting up to `limit`.
    func command(within limit: Duration = .seconds(20)) async throws -> String {
        try await eventually("a command from loctrack", within: limit) {
            readAvailable()
            return state.withLock { state -> String? in
                guard let newline = state.received.firstIndex(of: 0x0A) else { return nil }
                let line = String(decoding: state.received[..<newline], as: UTF8.self)
                state.received.removeSubrange(...newline)
                return line
            }
        }
    }

    /// Waits until loctrack closed its end (reads and keeps what it sent before).
    func waitForEndOfFile(within limit: Duration = .seconds(20)) async throws {
        _ = try await eventually("loctrack closing the connection", within: limit) {
            readAvailable()
            return state.withLock { $0.sawEndOfFile } ? true : nil
        }
    }

    /// Whether loctrack closed its end, without waiting.
    var isClosedByLoctrack: Bool {
        readAvailable()
        return state.withLock { $0.sawEndOfFile }
    }

    /// Hangs up, as gpsd does when it stops (the reader sees end of file).
    func close() {
        state.withLock { state in
            if state.descriptor >= 0 { Glibc.close(state.descriptor) }
            state.descriptor = -1
        }
    }

    private func readAvailable() {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { space in
                    (try? valueOrErrno { read(state.descriptor, space.baseAddress, space.count) }) ?? -1
                }
                if count > 0 {
                    state.received += buffer[..<count]
                    continue
                }
                if count == 0 { state.sawEndOfFile = true }
                return
            }
        }
    }
}

struct ScriptError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every millisecond until it gives a value; throws after `limit`.
func eventually<T>(_ what: String, within limit: Duration, _ condition: () -> T?) async throws -> T {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = condition() { return value }
        guard ContinuousClock.now < deadline else { throw ScriptError("timed out after \(limit) waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// `send(2)` everything, without SIGPIPE; nil when all was written.
private func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Errno? {
    bytes.withUnsafeBytes { buffer -> Errno? in
        var offset = 0
        while offset < buffer.count {
            do throws(Errno) {
                offset += try valueOrErrno {
                    Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                }
            } catch .wouldBlock {
                continue  // commands are short; the peer reads them
            } catch {
                return error
            }
        }
        return nil
    }
}
