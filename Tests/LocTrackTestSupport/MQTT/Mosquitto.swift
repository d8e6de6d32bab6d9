package import Foundation
import Glibc
import Synchronization

/// A real `mosquitto` 2.0 broker for one test, on a free loopback port, in a
/// temporary directory of its own (config, persistence, log, certificates).
///
/// ```swift
/// try await withMosquitto { broker in
///     let subscriber = try await broker.subscribe(topic: "t", clientID: "sub-\(UUID())")
///     …
///     try await subscriber.waitForMessages(count: 3)
/// }
/// ```
///
/// ## What the config does (see /work/shared/docs/mqtt-facts.md)
/// - `listener PORT 127.0.0.1`, and with ``Options/tls`` a second listener on
///   ``tlsPort`` with a CA and a server certificate made by `openssl` here
///   (CN `localhost`, SAN `DNS:localhost, IP:127.0.0.1`): ``caFile``.
/// - `allow_anonymous true`, or with ``Options/users`` a password file hashed with
///   `mosquitto_passwd -U` and `allow_anonymous false`.
/// - `persistence true`, `autosave_interval 1`: a broker stopped with SIGTERM
///   (``stop()``) saves every persistent session and its queued QoS 1 messages, so a
///   ``Subscriber`` (clean session off, fixed id) gets after ``restart()`` what was
///   published while it was away. ``kill()`` loses what came after the last autosave.
/// - `user root`: a broker run as root drops to user `mosquitto`, which could not
///   write its persistence into a folder root made.
/// - `log_type all` to ``logFile``: every CONNECT, SUBSCRIBE and PUBLISH with its
///   flags (``publishes(from:)``), across restarts.
///
/// ``start()``, ``stop()``, ``kill()`` and ``restart()`` keep the port: clients reconnect
/// to the same address. ``shutdown()`` (always run by ``withMosquitto(_:_:)``) kills
/// the broker and every subscriber and removes the directory.
package final class Mosquitto: Sendable {
    package struct Options: Sendable {
        /// A second listener with TLS (``tlsPort``, ``caFile``).
        package var tls = false
        /// `user: password` pairs; anonymous clients are refused when set.
        package var users: [String: String]?
        /// Start the broker at once (otherwise: ``start()`` later, e.g. for a broker that is down at first).
        package var startsRunning = true

        package init(tls: Bool = false, users: [String: String]? = nil, startsRunning: Bool = true) {
            self.tls = tls
            self.users = users
            self.startsRunning = startsRunning
        }
    }

    /// The plain MQTT listener.
    package let port: Int
    /// The TLS listener, with ``Options/tls``.
    package let tlsPort: Int?
    package let directory: URL
    package let options: Options
    private let broker = Mutex<ChildProcess?>(nil)
    private let subscribers = Mutex<[Subscriber]>([])
    private let shutDown = Atomic<Bool>(false)

    /// Whether the tests that need the broker and its tools run: installed, or ``RequiredTools`` says they must be.
    package static var isAvailable: Bool {
        RequiredTools.run(ifInstalled: ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_sub", "/usr/bin/mosquitto_pub",
                                        "/usr/bin/mosquitto_passwd", "/usr/bin/openssl"]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) })
    }

    package var configFile: String { directory.appendingPathComponent("mosquitto.conf").path }
    package var logFile: String { directory.appendingPathComponent("mosquitto.log").path }
    /// The CA that signed the TLS listener's certificate (PEM).
    package var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// `mqtt://127.0.0.1:PORT/TOPIC`; `via` another port, e.g. a ``TCPRelay``'s to this broker.
    package func url(topic: String, user: String? = nil, via relayPort: Int? = nil) -> String {
        "mqtt://\(user.map { "\($0)@" } ?? "")127.0.0.1:\(relayPort ?? port)/\(topic)"
    }
    /// `mqtts://127.0.0.1:TLSPORT/TOPIC`.
    package func tlsURL(topic: String, host: String = "127.0.0.1") -> String {
        "mqtts://\(host):\(tlsPort!)/\(topic)"
    }

    /// Writes the config (and certificates, password file) and, unless told otherwise, starts the broker.
    package init(options: Options = Options()) async throws {
        self.options = options
        port = try Loopback.freePort()
        tlsPort = options.tls ? try Loopback.freePort() : nil
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("loctrack-mosquitto-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("data"), withIntermediateDirectories: true)
            try await writeConfig()
            if options.startsRunning { try await start() }
        } catch {
            shutdown()
            throw error
        }
    }

    deinit { shutdown() }
    // MARK: - Running

    /// Starts the broker (on the same ports as before) and returns once every listener accepts connections.
    package func start() async throws {
        let process = try broker.withLock { broker -> ChildProcess in
            if let running = broker, running.pollTermination() == nil { throw HarnessError("the broker is already running") }
            let process = try ChildProcess(
                executable: "/usr/sbin/mosquitto", arguments: ["mosquitto", "-c", configFile],
                stdin: .null, stdout: .null, stderr: .pipe, newProcessGroup: true)
            broker = process
            return process
        }
        let ports = [port] + (tlsPort.map { [$0] } ?? [])
        try await waitUntil(timeout: .seconds(10), "mosquitto to listen on \(ports); stderr:\n\(process.stderr?.text ?? "")\nlog:\n\(logTail)") {
            if let ended = process.pollTermination() {
                throw HarnessError("mosquitto ended (\(ended)) while starting; stderr:\n\(process.stderr?.text ?? "")\nlog:\n\(logTail)")
            }
            return ports.allSatisfy { Loopback.canConnect(port: $0) }
        }
    }

    /// Stops the broker with SIGTERM (it saves its sessions) and waits for it to exit.
    package func stop() async throws {
        guard let process = broker.withLock({ $0 }) else { return }
        process.signal(SIGTERM)
        process.signal(SIGCONT)
        guard let ended = await process.waitForTermination(timeout: .seconds(10)) else {
            process.signal(SIGKILL)
            process.reap()
            throw HarnessError("mosquitto did not exit within 10 s of SIGTERM; killed")
        }
        if ended != .exited(0) { throw HarnessError("mosquitto ended with \(ended) on SIGTERM; log:\n\(logTail)") }
    }

    /// Kills the broker (SIGKILL): what it had not saved yet is lost.
    package func kill() {
        guard let process = broker.withLock({ $0 }) else { return }
        process.signal(SIGKILL)
        process.reap()
    }

    /// Freezes the broker (SIGSTOP): connections stay open and the kernel still takes
    /// what clients send, but nothing is read or acknowledged until ``resume()``.
    package func pause() {
        broker.withLock { $0 }?.signal(SIGSTOP)
    }

    /// Lets a paused broker run again (SIGCONT): it reads what waited in its sockets.
    package func resume() {
        broker.withLock { $0 }?.signal(SIGCONT)
    }

    /// ``stop()`` then ``start()`` on the same ports.
    package func restart() async throws {
        try await stop()
        try await start()
    }

    package var isRunning: Bool { broker.withLock { $0?.pollTermination() == nil && $0 != nil } }

    // MARK: - Clients

    /// Starts a ``Subscriber`` on `topics` (QoS 1, persistent session `clientID`) and
    /// returns once the broker has its SUBSCRIBE.
    package func subscribe(
        topics: [String], clientID: String, user: String? = nil, password: String? = nil, tls: Bool = false
    ) async throws -> Subscriber {
        let subscriber = try Subscriber(broker: self, topics: topics, clientID: clientID, user: user, password: password, tls: tls)
        subscribers.withLock { $0.append(subscriber) }
        try await subscriber.waitForSubscription(count: 1)
        return subscriber
    }

    /// ``subscribe(topics:clientID:user:password:tls:)`` to `TOPIC/#` (TOPIC itself and everything under it).
    package func subscribe(topic: String, clientID: String, user: String? = nil, password: String? = nil) async throws -> Subscriber {
        try await subscribe(topics: ["\(topic)/#"], clientID: clientID, user: user, password: password)
    }

    /// Publishes one message with `mosquitto_pub` (QoS 1) and waits for it to exit.
    package func publish(
        topic: String, message: String, clientID: String = "pub-\(UUID().uuidString.prefix(8))",
        user: String? = nil, password: String? = nil, tls: Bool = false, extra: [String] = []
    ) async throws -> LoctrackResult {
        var arguments = ["-h", "127.0.0.1", "-p", String(tls ? tlsPort! : port), "-q", "1", "-i", clientID, "-t", topic, "-m", message]
        if let user { arguments += ["-u", user] }
        if let password { arguments += ["-P", password] }
        if tls { arguments += ["--cafile", caFile] }
        let process = try ChildProcess(
            executable: "/usr/bin/mosquitto_pub", arguments: ["mosquitto_pub"] + arguments + extra,
            stdin: .null, stdout: .pipe, stderr: .pipe, newProcessGroup: true)
        return try await process.result(timeLimit: .seconds(10))
    }

    // MARK: - Cleanup

    /// Kills the broker and every subscriber and removes the directory. Idempotent.
    package func shutdown() {
        guard !shutDown.exchange(true, ordering: .sequentiallyConsistent) else { return }
        for subscriber in subscribers.withLock({ $0 }) { subscriber.stop() }
        kill()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with a fresh broker (see ``Mosquitto``); the broker, its subscribers and
/// its files are always cleaned up afterwards, also when `body` throws or is cancelled.
package func withMosquitto<Result>(
    _ options: Mosquitto.Options = Mosquitto.Options(), _ body: (Mosquitto) async throws -> Result
) async throws -> Result {
    let broker = try await Mosquitto(options: options)
    defer { broker.shutdown() }
    return try await body(broker)
}
