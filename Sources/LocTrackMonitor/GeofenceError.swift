import LocTrack
import LocTrackSystem

/// Why a geofence monitor could not do what it was asked.
///
/// Its ``description`` is one line for stderr; ``exitCode`` (GeofenceError+ExitCode.swift)
/// maps the cases to exit codes (docs/exit-codes.md): bad input 64, a corrupt state file 65,
/// I/O 74, busy 75.
public enum GeofenceError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidLatitude(Double)
    case invalidLongitude(Double)
    case invalidRadius(Double)
    /// A polygon or GeoJSON document that is not a usable region.
    case invalidGeometry(String)
    /// A monitor name that cannot be a file name.
    case invalidName(String)
    /// A condition identifier that is empty or too long.
    case invalidIdentifier(String)
    /// A condition's display name that is empty or too long.
    case invalidTitle(String)
    /// `remove` of an identifier the monitor does not hold.
    case unknownIdentifier(String, monitor: String)
    /// `GeofenceMonitor(named:)` while this process already has that monitor open.
    case alreadyOpen(String)
    /// Another process is already running this monitor.
    case alreadyRunning(String, path: String)
    /// The state file exists but cannot be read as a monitor; it is left untouched.
    case corruptStateFile(path: String, reason: String)
    /// Reading, writing or locking the state failed (`errno` in `errorNumber`).
    case stateFileIO(path: String, operation: String, errorNumber: Int32)

    public var description: String {
        switch self {
        case .invalidLatitude(let value):
            "invalid latitude \(value): expected a number of degrees from -90 to 90"
        case .invalidLongitude(let value):
            "invalid longitude \(value): expected a number of degrees from -180 to 180"
        case .invalidRadius(let value):
            "invalid radius \(value): expected a positive number of metres"
        case .invalidGeometry(let reason):
            "invalid region: \(reason)"
        case .invalidName(let name):
            "invalid monitor name '\(name)': expected 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'"
        case .invalidIdentifier(let identifier):
            "invalid condition id '\(identifier)': expected 1 to 200 characters without control characters"
        case .invalidTitle(let title):
            "invalid region title '\(title)': expected 1 to 200 characters without control characters"
        case .unknownIdentifier(let identifier, let monitor):
            "monitor '\(monitor)' has no condition '\(identifier)'"
        case .alreadyOpen(let name):
            "monitor '\(name)' is already open in this process"
        case .alreadyRunning(let name, let path):
            "monitor '\(name)' is already running in another process (lock held on \(path))"
        case .corruptStateFile(let path, let reason):
            "cannot read monitor state \(path): \(reason); the file is left as it is"
        case .stateFileIO(let path, let operation, let errorNumber):
            "cannot \(operation) \(path): \(Errno(code: errorNumber))"
        }
    }
}
