import Foundation

/// What the broker saw, from its log (`log_type all`).
extension Mosquitto {
    /// The broker's log (every run), one entry per line.
    package var log: [String] {
        ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    package var logTail: String { log.suffix(40).joined(separator: "\n") }

    /// The PUBLISH packets the broker received from client `clientID`, as logged:
    /// `(flags, topic, bytes)`, e.g. `("d0, q1, r0, m1", "t", 312)`; the flags without the message id
    /// come from ``PublishRecord/qos``, ``PublishRecord/retain``.
    package func publishes(from clientID: String) -> [PublishRecord] {
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

    package struct PublishRecord: Sendable, Equatable {
        package let duplicate: Bool
        package let qos: Int
        package let retain: Bool
        package let topic: String

        package init(duplicate: Bool, qos: Int, retain: Bool, topic: String) {
            self.duplicate = duplicate
            self.qos = qos
            self.retain = retain
            self.topic = topic
        }
    }

    /// Whether the broker logged a connection of `clientID` (accepted or refused).
    package func sawConnection(from clientID: String) -> Bool {
        log.contains { $0.contains("New client connected") && $0.contains(" as \(clientID) ") }
    }
}
