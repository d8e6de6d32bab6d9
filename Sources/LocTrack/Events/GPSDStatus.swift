import LocTrackSystem
/// What happened to the connection or the receiver, apart from fixes.
///
/// Delivered in order with the fixes as ``GPSDEvent/status(_:)`` in a session's
/// event sequence, for a program to report (loctrack prints each once on stderr).
public enum GPSDStatus: Sendable, Equatable, CustomStringConvertible {
    /// gpsd answered with its VERSION banner and the watch is on.
    case connected(GPSDSource, release: String?)
    /// gpsd is unavailable or went away; the next attempt is in `retryIn`.
    case waiting(LocTrackError, retryIn: Duration)
    /// gpsd says it lost a device (`DEVICE` with `"activated":0`: unplugged, or the port failed).
    case deviceLost(String)
    /// The receiver reports no fix any more (a TPV with mode 0 or 1 after fixes).
    case fixLost(device: String?)
    /// No fix has arrived for `seconds` while gpsd stays connected (receiver silent or lost its fix).
    case noFixes(seconds: Int)
    /// Fixes arrive again after ``noFixes(seconds:)``.
    case fixesResumed
    /// A line from gpsd that loctrack could not use; the stream goes on.
    case skippedReport(reason: String, excerpt: String)

    public var description: String {
        switch self {
        case .connected(let source, let release):
            "connected to gpsd \(release ?? "") at \(source)"
        case .waiting(let error, let delay):
            "\(error); retrying in \(Self.format(delay))"
        case .deviceLost(let path):
            "gpsd lost device \(path)"
        case .fixLost(let device):
            "\(device ?? "the receiver") lost its fix"
        case .noFixes(let seconds):
            "no fix from gpsd for \(seconds) s (receiver silent or without a fix)"
        case .fixesResumed:
            "fixes resumed"
        case .skippedReport(let reason, let excerpt):
            "skipped a report (\(reason)): \(excerpt)"
        }
    }

    private static func format(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds < 1000 ? "\(milliseconds) ms" : "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
