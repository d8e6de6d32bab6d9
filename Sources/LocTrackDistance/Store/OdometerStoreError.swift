import LocTrackSystem

/// Why the odometer's state file could not be read or written. Each case prints as one
/// line naming the file, for stderr.
public enum OdometerStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is there but is not an odometer state file (``OdometerFileFormat``).
    /// It is left as it is, for a person to look at.
    case corruptFile(path: String, reason: String)
    /// Reading, writing or syncing it failed (`errno` in `errorNumber`).
    case fileIO(path: String, operation: String, errorNumber: Int32)
    /// A value the odometer cannot hold: negative, or not a finite number.
    case invalidMetres(Double)

    public var description: String {
        switch self {
        case .corruptFile(let path, let reason):
            "\(path): not a loctrack odometer file (\(reason)); fix or remove it, or set the odometer anew"
        case .fileIO(let path, let operation, let errorNumber):
            "\(path): cannot \(operation) the odometer file: \(Errno(code: errorNumber).description)"
        case .invalidMetres(let value):
            "invalid odometer reading \(value): expected a number of metres, 0 or more"
        }
    }
}
