/// What happened to the connection or the receiver, apart from fixes.
///
/// Delivered in order with the fixes to the session's status handler, for a
/// program to report (loctrack prints each once on stderr).
public enum GPSDStatus: Sendable, Equatable, CustomStringConvertible {
    /// gpsd answered with its VERSION banner and the watch is on.
    case connected(GPSDSource, release: String?)
    /// gpsd is unavailable or went away; the next attempt is in `retryIn`.
    case waiting(LocTrackError, retryIn: Duration)

    public var description: String {
        switch self {
        case .connected(let source, let release):
            "connected to gpsd \(release ?? "") at \(source)"
        case .waiting(let error, let delay):
            "\(error); retrying in \(Self.format(delay))"
        }
    }

    private static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds < 1000 ? "\(milliseconds) ms" : "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
