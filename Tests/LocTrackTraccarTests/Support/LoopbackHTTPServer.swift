import Glibc
import LocTrackSystem
import LocTrackTestSupport
import Synchronization

/// A minimal HTTP/1.1 server on a loopback port, for one smoke test of the real transport
/// (the Traccar stand-in of the end-to-end tests is another's): it answers each request
/// as scripted, keeps the connection open between requests, and records the request
/// heads and how many connections it accepted. One connection at a time; its own thread
/// sleeps in `poll()` on the listener, the connection and a wake-up pipe.
final class LoopbackHTTPServer: Sendable {
    enum Answer: Sendable {
        /// A reply with this status, an empty body and a `Content-Length`, as Traccar's.
        case status(Int)
        /// Close the connection without a reply (Traccar's answer for a disabled device).
        case closeWithoutReply
        /// Read the request and never answer.
        case silence
    }

    struct State {
        var script: [Answer]
        /// Each request's head (request line and headers), in order.
        var heads: [String] = []
        var accepted = 0
        var stopping = false
    }

    let port: Int
    private let listener: Int32
    private let wakeUps: WakeUpPipe
    let state: Mutex<State>
    private let thread = Mutex<JoinableThread?>(nil)

    init(answering script: [Answer]) throws {
        (listener, port) = try Loopback.listen()
        wakeUps = try WakeUpPipe()
        state = Mutex(State(script: script))
        // The thread holds the server until stop() ends it.
        var started: JoinableThread? = try JoinableThread(named: "test-http") { [self] in run() }
        thread.withLock { $0 = started.take() }
    }

    deinit {
        close(listener)
    }

    var heads: [String] { state.withLock { $0.heads } }
    var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// Stops the thread and joins it.
    func stop() {
        state.withLock { $0.stopping = true }
        wakeUps.wake()
        if let ended = thread.withLock({ $0.take() }) { ended.join() }
    }

    private func run() {
        var connection: Int32 = -1
        var received: [UInt8] = []
        var descriptors = PollSet(count: 3)
        while !state.withLock({ $0.stopping }) {
            descriptors.set(0, descriptor: wakeUps.readDescriptor, events: .readable)
            descriptors.set(1, descriptor: listener, events: .readable)
            descriptors.set(2, descriptor: connection, events: .readable)
            _ = try? descriptors.wait(entries: connection >= 0 ? 3 : 2, milliseconds: -1)
            if !descriptors.returned(0).isEmpty { wakeUps.drain() }
            if connection < 0, !descriptors.returned(1).isEmpty {
                connection = Loopback.acceptCloseOnExec(listener)
                if connection >= 0 { state.withLock { $0.accepted += 1 } }
                received = []
            }
            guard connection >= 0, !descriptors.returned(2).isEmpty else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else {
                close(connection)
                connection = -1
                continue
            }
            received += buffer[..<count]
            while let end = Self.endOfHead(received) {
                let head = String(decoding: received[..<end], as: UTF8.self)
                received.removeFirst(end + 4)
                let answer = state.withLock { state -> Answer in
                    state.heads.append(head)
                    return state.script.isEmpty ? .status(200) : state.script.removeFirst()
                }
                switch answer {
                case .status(let code):
                    let reply = Array("HTTP/1.1 \(code) Status\r\nContent-Length: 0\r\n\r\n".utf8)
                    _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                case .closeWithoutReply:
                    close(connection)
                    connection = -1
                    received = []
                case .silence:
                    break
                }
                if connection < 0 { break }
            }
        }
        if connection >= 0 { close(connection) }
    }

    /// Where the first `\r\n\r\n` starts.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
