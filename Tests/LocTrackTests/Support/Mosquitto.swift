import Foundation
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
final class Mosquitto: Sendable {
    struct Options: Sendable {
        /// A second listener with TLS (``tlsPort``, ``caFile``).
        var tls = false
        /// `user: password` pairs; anonymous clients are refused when set.
        var users: [String: String]?
        /// Start the broker at once (otherwise: ``start()`` later, e.g. for a broker that is down at first).
        var startsRunning = true

        init(tls: Bool = false, users: [String: String]? = nil, startsRunning: Bool = true) {
            self.tls = tls
            self.users = users
            self.startsRunning = startsRunning
        }
    }

    /// The plain MQTT listener.
    let port: Int
    /// The TLS listener, with ``Options/tls``.
    let tlsPort: Int?
    let directory: URL
    let options: Options
    private let broker = Mutex<ChildProcess?>(nil)
    private let subscribers = Mutex<[Subscriber]>([])
    private let shutDown = Atomic<Bool>(false)

    static var isAvailable: Bool {
        ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_sub", "/usr/bin/mosquitto_pub", "/usr/bin/mosquitto_passwd", "/usr/bin/openssl"]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    var configFile: String { directory.appendingPathComponent("mosquitto.conf").path }
    var logFile: String { directory.appendingPathComponent("mosquitto.log").path }
    /// The CA that signed the TLS listener's certificate (PEM).
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// `mqtt://127.0.0.1:PORT/TOPIC`; `via` another port, e.g. a ``TCPRelay``'s to this broker.
    func url(topic: String, user: String? = nil, via relayPort: Int? = nil) -> String {
        "mqtt://\(user.map { "\($0)@" } ?? "")127.0.0.1:\(relayPort ?? port)/\(topic)"
    }
    /// `mqtts://127.0.0.1:TLSPORT/TOPIC`.
    func tlsURL(topic: String, host: String = "127.0.0.1") -> String {
        "mqtts://\(host):\(tlsPort!)/\(topic)"
    }

    /// Writes the config (and certificates, password file) and, unless told otherwise, starts the broker.
    init(options: Options = Options()) async throws {
        self.options = options
        port = try GPSFake.freeLoopbackPort()
        tlsPort = options.tls ? try GPSFake.freeLoopbackPort() : nil
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

    private func writeConfig() async throws {
        let path = directory.path
        var config = """
            # loctrack test broker
            user root
            per_listener_settings false
            persistence true
            persistence_location \(path)/data/
            autosave_interval 1
            log_dest file \(logFile)
            log_type all
            connection_messages true
            listener \(port) 127.0.0.1

            """
        if let users = options.users {
            let passwords = directory.appendingPathComponent("passwords").path
            try users.map { "\($0.key):\($0.value)\n" }.joined().write(toFile: passwords, atomically: true, encoding: .utf8)
            try await runTool("/usr/bin/mosquitto_passwd", ["-U", passwords])
            config += "allow_anonymous false\npassword_file \(passwords)\n"
        } else {
            config += "allow_anonymous true\n"
        }
        if let tlsPort {
            try await makeCertificates()
            config += """
                listener \(tlsPort) 127.0.0.1
                cafile \(caFile)
                certfile \(path)/server.pem
                keyfile \(path)/server.key

                """
        }
        try config.write(toFile: configFile, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
    }

    /// A throwaway CA and a server certificate it signed for `localhost` and `127.0.0.1` (P-256, one day).
    private func makeCertificates() async throws {
        let path = directory.path
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await runTool("/usr/bin/openssl", ["req", "-x509"] + key + [
            "-keyout", "\(path)/ca.key", "-out", caFile, "-days", "1", "-subj", "/CN=loctrack test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try await runTool("/usr/bin/openssl", ["req", "-new"] + key + [
            "-keyout", "\(path)/server.key", "-out", "\(path)/server.csr", "-subj", "/CN=localhost",
        ])
        let extensions = "\(path)/server.ext"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try await runTool("/usr/bin/openssl", [
            "x509", "-req", "-in", "\(path)/server.csr", "-CA", caFile, "-CAkey", "\(path)/ca.key", "-CAcreateserial",
            "-out", "\(path)/server.pem", "-days", "1", "-extfile", extensions,
        ])
    }

    // MARK: - Running

    /// Starts the broker (on the same ports as before) and returns once every listener accepts connections.
    func start() async throws {
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
            return ports.allSatisfy { GPSFake.canConnect(port: $0) }
        }
    }

    /// Stops the broker with SIGTERM (it saves its sessions) and waits for it to exit.
    func stop() async throws {
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
    func kill() {
        guard let process = broker.withLock({ $0 }) else { return }
        process.signal(SIGKILL)
        process.reap()
    }

    /// Freezes the broker (SIGSTOP): connections stay open and the kernel still takes
    /// what clients send, but nothing is read or acknowledged until ``resume()``.
    func pause() {
        broker.withLock { $0 }?.signal(SIGSTOP)
    }

    /// Lets a paused broker run again (SIGCONT): it reads what waited in its sockets.
    func resume() {
        broker.withLock { $0 }?.signal(SIGCONT)
    }

    /// ``stop()`` then ``start()`` on the same ports.
    func restart() async throws {
        try await stop()
        try await start()
    }

    var isRunning: Bool { broker.withLock { $0?.pollTermination() == nil && $0 != nil } }

    // MARK: - What the broker saw

    /// The broker's log (every run), one entry per line.
    var log: [String] {
        ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var logTail: String { log.suffix(40).joined(separator: "\n") }

    /// The PUBLISH packets the broker received from client `clientID`, as logged:
    /// `(flags, topic, bytes)`, e.g. `("d0, q1, r0, m1", "t", 312)`; the flags without the message id
    /// come from ``PublishRecord/qos``, ``PublishRecord/retain``.
    func publishes(from clientID: String) -> [PublishRecord] {
        // 1763900000: Received PUBLISH from loctrack-a (d0, q1, r0, m1, 'loctrack/a', ... (312 bytes))
        let marker = "Received PUBLISH from \(clientID) ("
        return log.compactMap { line in
            guard let start = line.range(of: marker) else { return nil }
            let rest = line[start.upperBound...]
            let fields = rest.split(separator: ",", maxSplits: 4).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 5, let quote = fields[4].firstIndex(of: "'"),
                  let close = fields[4][fields[4].index(after: quote)...].firstIndex(of: "'")
            else { return nil }
            let topic = String(fields[4][fields[4].index(after: quote)..<close])
            return PublishRecord(
                duplicate: fields[0] == "d1", qos: Int(fields[1].dropFirst()) ?? -1, retain: fields[2] == "r1", topic: topic)
        }
    }

    struct PublishRecord: Sendable, Equatable {
        let duplicate: Bool
        let qos: Int
        let retain: Bool
        let topic: String
    }

    /// Whether the broker logged a connection of `clientID` (accepted or refused).
    func sawConnection(from clientID: String) -> Bool {
        log.contains { $0.contains("New client connected") && $0.contains(" as \(clientID) ") }
    }

    // MARK: - Clients

    /// Starts a ``Subscriber`` on `topics` (QoS 1, persistent session `clientID`) and
    /// returns once the broker has its SUBSCRIBE.
    func subscribe(
        topics: [String], clientID: String, user: String? = nil, password: String? = nil, tls: Bool = false
    ) async throws -> Subscriber {
        let subscriber = try Subscriber(broker: self, topics: topics, clientID: clientID, user: user, password: password, tls: tls)
        subscribers.withLock { $0.append(subscriber) }
        try await subscriber.waitForSubscription(count: 1)
        return subscriber
    }

    /// ``subscribe(topics:clientID:user:password:tls:)`` to `TOPIC/#` (TOPIC itself and everything under it).
    func subscribe(topic: String, clientID: String, user: String? = nil, password: String? = nil) async throws -> Subscriber {
        try await subscribe(topics: ["\(topic)/#"], clientID: clientID, user: user, password: password)
    }

    /// Publishes one message with `mosquitto_pub` (QoS 1) and waits for it to exit.
    func publish(
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
    func shutdown() {
        guard !shutDown.exchange(true, ordering: .sequentiallyConsistent) else { return }
        for subscriber in subscribers.withLock({ $0 }) { subscriber.stop() }
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a tool to its end; throws with its output unless it exits 0.
    private func runTool(_ executable: String, _ arguments: [String]) async throws {
        let process = try ChildProcess(
            executable: executable, arguments: [executable] + arguments, stdin: .null, stdout: .pipe, stderr: .pipe, newProcessGroup: true)
        let result = try await process.result(timeLimit: .seconds(20))
        guard result.status == .exited(0) else {
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")): \(result.status)\n\(result.stdout)\(result.stderr)")
        }
    }
}

/// Runs `body` with a fresh broker (see ``Mosquitto``); the broker, its subscribers and
/// its files are always cleaned up afterwards, also when `body` throws or is cancelled.
func withMosquitto<Result>(
    _ options: Mosquitto.Options = Mosquitto.Options(), _ body: (Mosquitto) async throws -> Result
) async throws -> Result {
    let broker = try await Mosquitto(options: options)
    defer { broker.shutdown() }
    return try await body(broker)
}

// MARK: - Subscriber

/// `mosquitto_sub -q 1 -c -i ID -v -t TOPIC…`: a persistent session (clean session off,
/// fixed client id), so across a broker restart (``Mosquitto/stop()``, ``Mosquitto/start()``) it
/// still gets, after reconnecting by itself, what was published while it was away.
/// Collects every message as `(topic, payload)`, in arrival order, duplicates included.
final class Subscriber: Sendable {
    struct Message: Sendable, Equatable, CustomStringConvertible {
        let topic: String
        let payload: String
        var description: String { "\(topic) \(payload)" }

        /// The payload as a JSON object, or nil.
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] }
    }

    let clientID: String
    let topics: [String]
    private let process: ChildProcess
    /// The broker's log file, where its SUBSCRIBEs show.
    private let brokerLog: String

    fileprivate init(broker: Mosquitto, topics: [String], clientID: String, user: String?, password: String?, tls: Bool) throws {
        self.brokerLog = broker.logFile
        self.clientID = clientID
        self.topics = topics
        var arguments = [
            "mosquitto_sub", "-h", "127.0.0.1", "-p", String(tls ? broker.tlsPort! : broker.port),
            "-q", "1", "-c", "-i", clientID, "-v",
        ]
        for topic in topics { arguments += ["-t", topic] }
        if let user { arguments += ["-u", user] }
        if let password { arguments += ["-P", password] }
        if tls { arguments += ["--cafile", broker.caFile] }
        process = try ChildProcess(
            executable: "/usr/bin/mosquitto_sub", arguments: arguments, stdin: .null, stdout: .pipe, stderr: .pipe, newProcessGroup: true)
    }

    deinit { stop() }

    /// Every message so far (topic, payload), in arrival order.
    var messages: [Message] {
        (process.stdout?.lines ?? []).map { line in
            guard let space = line.firstIndex(of: " ") else { return Message(topic: line, payload: "") }
            return Message(topic: String(line[..<space]), payload: String(line[line.index(after: space)...]))
        }
    }

    /// The payloads of the messages on `topic`, in arrival order.
    func payloads(on topic: String) -> [String] {
        messages.filter { $0.topic == topic }.map(\.payload)
    }

    var stderr: String { process.stderr?.text ?? "" }

    /// Waits until at least `count` messages arrived (on `topic`, if given).
    func waitForMessages(count: Int, on topic: String? = nil, timeout: Duration = .seconds(15)) async throws {
        try await waitUntil(timeout: timeout, "\(count) messages\(topic.map { " on \($0)" } ?? ""); have:\n\(report)") {
            if let ended = process.pollTermination() { throw HarnessError("mosquitto_sub ended (\(ended)):\n\(report)") }
            return messages.filter { topic == nil || $0.topic == topic }.count >= count
        }
    }

    /// Waits until `condition` holds for the messages so far.
    func waitForMessages(timeout: Duration = .seconds(15), _ what: String, where condition: ([Message]) -> Bool) async throws {
        try await waitUntil(timeout: timeout, "\(what); have:\n\(report)") {
            if let ended = process.pollTermination() { throw HarnessError("mosquitto_sub ended (\(ended)):\n\(report)") }
            return condition(messages)
        }
    }

    /// Waits until the broker has logged `count` SUBSCRIBEs from this client (one per (re)connection).
    func waitForSubscription(count: Int, timeout: Duration = .seconds(15)) async throws {
        func brokerLogLines() -> [Substring] {
            ((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "").split(separator: "\n")
        }
        try await waitUntil(timeout: timeout, "the broker to get SUBSCRIBE #\(count) from \(clientID); log:\n\(brokerLogLines().suffix(30).joined(separator: "\n"))\n\(report)") {
            if let ended = process.pollTermination() { throw HarnessError("mosquitto_sub ended (\(ended)):\n\(report)") }
            return brokerLogLines().filter { $0.contains("Received SUBSCRIBE from \(clientID)") }.count >= count
        }
    }

    /// What it received and wrote on stderr, for failure messages.
    var report: String {
        "mosquitto_sub \(clientID) on \(topics) received \(messages.count):\n"
            + messages.map(\.description).joined(separator: "\n") + "\n--- its stderr ---\n\(stderr)"
            + (process.pollTermination() == nil ? "" : "\n--- the broker's log ---\n\(brokerLogTail)")
    }

    private var brokerLogTail: String {
        ((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "").split(separator: "\n").suffix(60).joined(separator: "\n")
    }

    /// Ends `mosquitto_sub` (SIGKILL) and reaps it. Idempotent.
    func stop() {
        if process.pollTermination() == nil {
            process.signalGroup(SIGKILL)
            process.reap()
        }
    }
}
