import LocTrackSystem
public import LocTrackSpool

/// What happened to a Traccar uplink, for a program to report (loctrack prints each on
/// stderr, an outage or a refusal once until the server takes positions again).
public enum UplinkStatus: Sendable, Hashable, CustomStringConvertible {
    /// The server took a position after an outage or a refusal.
    case resumed(server: String)
    /// The server cannot be reached, answered 5xx, or closed the connection without a
    /// reply; the next attempt is in `retryIn`. Positions keep going to the spool.
    case waiting(server: String, reason: String, retryIn: Duration)
    /// HTTP 400: Traccar does not know the device. Positions are kept, and the oldest is
    /// offered again every `probeEvery` until the device is added.
    case unknownDevice(deviceID: String, probeEvery: Duration)
    /// Another 4xx (or a 3xx, which is not followed): treated as a 400, and said with
    /// its status.
    case refused(server: String, deviceID: String, status: Int, probeEvery: Duration)
    /// The spool reached its limit: this many of its oldest positions were dropped.
    case droppedOldest(count: Int, limitBytes: Int64)
    /// The spool failed (a full disk, damage): the uplink stopped.
    case spoolFailed(SpoolError)
    /// libcurl could not be set up: the uplink stopped.
    case failed(reason: String)

    /// Whether the uplink has stopped for good.
    public var isFatal: Bool {
        switch self {
        case .spoolFailed, .failed: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .resumed(let server):
            "traccar: the server at \(server) takes positions again"
        case .waiting(let server, let reason, let delay):
            "traccar: cannot send to the server at \(server): \(reason); retrying in \(Self.format(delay)) (positions are kept in the spool)"
        case .unknownDevice(let deviceID, let probe):
            "traccar: the server does not know device \"\(deviceID)\" (HTTP 400); keeping positions and asking again every \(Self.format(probe))"
        case .refused(let server, let deviceID, let status, let probe):
            "traccar: the server at \(server) refuses positions of device \"\(deviceID)\" (HTTP \(status)); keeping positions and asking again every \(Self.format(probe))"
        case .droppedOldest(let count, let limit):
            "traccar: the spool is full (--spool-limit \(limit) bytes): dropped its \(count) oldest position\(count == 1 ? "" : "s")"
        case .spoolFailed(let error):
            "traccar: sending positions failed: \(error)"
        case .failed(let reason):
            "traccar: sending positions failed: \(reason)"
        }
    }

    /// `750 ms`, `2.5 s`, `30 s`.
    static func format(_ delay: Duration) -> String {
        let milliseconds = delay.milliseconds
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
