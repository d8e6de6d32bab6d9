import Foundation
import Glibc
import Synchronization


/// `mosquitto_sub -q 1 -c -i ID -v -t TOPIC…`: a persistent session (clean session off,
/// fixed client id), so across a broker restart (``Mosquitto/stop()``, ``Mosquitto/start()``) it
/// still gets, after reconnecting by itself, what was published while it was away.
/// Collects every message as `(topic, payload)`, in arrival order, duplicates included.
package final class Subscriber: Sendable {
    package struct Message: Sendable, Equatable, CustomStringConvertible {
        package let topic: String
        package let payload: String
        package var description: String { "\(topic) \(payload)" }

        package init(topic: String, payload: String) {
            self.topic = topic
            self.payload = payload
        }

        /// The payload as a JSON object, or nil.
        package var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] }
    }

    package let clientID: String
    package let topics: [String]
    private let process: ChildProcess
    /// The broker's log file, where its SUBSCRIBEs show.
    private let brokerLog: String

    init(broker: Mosquitto, topics: [String], clientID: String, user: String?, password: String?, tls: Bool) throws {
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
    package var messages: [Message] {
        (process.stdout?.lines ?? []).map { line in
            guard let space = line.firstIndex(of: " ") else { return Message(topic: line, payload: "") }
            return Message(topic: String(line[..<space]), payload: String(line[line.index(after: space)...]))
        }
    }

    /// The payloads of the messages on `topic`, in arrival order.
    package func payloads(on topic: String) -> [String] {
        messages.filter { $0.topic == topic }.map(\.payload)
    }

    package var stderr: String { process.stderr?.text ?? "" }

    /// Waits until at least `count` messages arrived (on `topic`, if given).
    package func waitForMessages(count: Int, on topic: String? = nil, timeout: Duration = .seconds(15)) async throws {
        try await waitUntil(timeout: timeout, "\(count) messages\(topic.map { " on \($0)" } ?? ""); have:\n\(report)") {
            if let ended = process.pollTermination() { throw HarnessError("mosquitto_sub ended (\(ended)):\n\(report)") }
            return messages.filter { topic == nil || $0.topic == topic }.count >= count
        }
    }

    /// Waits until `condition` holds for the messages so far.
    package func waitForMessages(timeout: Duration = .seconds(15), _ what: String, where condition: ([Message]) -> Bool) async throws {
        try await waitUntil(timeout: timeout, "\(what); have:\n\(report)") {
            if let ended = process.pollTermination() { throw HarnessError("mosquitto_sub ended (\(ended)):\n\(report)") }
            return condition(messages)
        }
    }

    /// Waits until the broker has logged `count` SUBSCRIBEs from this client (one per (re)connection).
    package func waitForSubscription(count: Int, timeout: Duration = .seconds(15)) async throws {
        func brokerLogLines() -> [Substring] {
            ((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "").split(separator: "\n")
        }
        try await waitUntil(timeout: timeout, "the broker to get SUBSCRIBE #\(count) from \(clientID); log:\n\(brokerLogLines().suffix(30).joined(separator: "\n"))\n\(report)") {
            if let ended = process.pollTermination() { throw HarnessError("mosquitto_sub ended (\(ended)):\n\(report)") }
            return brokerLogLines().filter { $0.contains("Received SUBSCRIBE from \(clientID)") }.count >= count
        }
    }

    /// What it received and wrote on stderr, for failure messages.
    package var report: String {
        "mosquitto_sub \(clientID) on \(topics) received \(messages.count):\n"
            + messages.map(\.description).joined(separator: "\n") + "\n--- its stderr ---\n\(stderr)"
            + (process.pollTermination() == nil ? "" : "\n--- the broker's log ---\n\(brokerLogTail)")
    }

    private var brokerLogTail: String {
        ((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "").split(separator: "\n").suffix(60).joined(separator: "\n")
    }

    /// Freezes `mosquitto_sub` (SIGSTOP): it neither reads nor reconnects until ``resume()``.
    package func pause() {
        process.signal(SIGSTOP)
    }

    /// Lets a paused `mosquitto_sub` run again (SIGCONT).
    package func resume() {
        process.signal(SIGCONT)
    }

    /// Ends `mosquitto_sub` (SIGKILL) and reaps it. Idempotent.
    package func stop() {
        if process.pollTermination() == nil {
            process.signalGroup(SIGKILL)
            process.reap()
        }
    }
}
