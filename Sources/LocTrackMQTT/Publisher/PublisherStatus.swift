import LocTrack
import LocTrackSystem
public import LocTrackSpool

/// What happened to the publisher's connection or spool, for a program to report
/// (loctrack prints each on stderr, an outage once).
public enum PublisherStatus: Sendable, Hashable, CustomStringConvertible {
    /// The broker accepted the connection (after an outage, or the first time).
    case connected(BrokerURL)
    /// The broker cannot be reached or the connection dropped; the next attempt is in
    /// `retryIn`. Messages keep going to the spool.
    case waiting(BrokerURL, reason: String, retryIn: Duration)
    /// The broker refused the login (CONNACK 4 or 5): retrying would not help, so the
    /// publisher stopped. Messages stay in the spool.
    case refused(BrokerURL, reason: String)
    /// The spool reached its limit: this many of its oldest messages were dropped.
    case droppedOldest(count: Int, limitBytes: Int64)
    /// The spool failed (a full disk, damage): the publisher stopped.
    case spoolFailed(SpoolError)
    /// The client failed (an unusable TLS set-up): the publisher stopped.
    case failed(reason: String)

    /// Whether the publisher has stopped for good.
    public var isFatal: Bool {
        switch self {
        case .refused, .spoolFailed, .failed: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .connected(let broker):
            "connected to the MQTT broker at \(broker.host):\(broker.port)"
        case .waiting(let broker, let reason, let delay):
            "cannot reach the MQTT broker at \(broker.host):\(broker.port): \(reason); retrying in \(Self.format(delay)) (messages are kept in the spool)"
        case .refused(let broker, let reason):
            "the MQTT broker at \(broker.host):\(broker.port) refused the login: \(reason)"
        case .droppedOldest(let count, let limit):
            "the spool is full (--spool-limit \(limit) bytes): dropped its \(count) oldest message\(count == 1 ? "" : "s")"
        case .spoolFailed(let error):
            "publishing failed: \(error)"
        case .failed(let reason):
            "publishing failed: \(reason)"
        }
    }

    private static func format(_ delay: Duration) -> String {
        let milliseconds = delay.milliseconds
        return milliseconds < 1000 ? "\(milliseconds) ms" : "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
