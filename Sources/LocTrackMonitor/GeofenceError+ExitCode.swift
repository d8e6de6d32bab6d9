public import LocTrackProcess

// Beside the error, as the sinks' and the web's errors say theirs: `monitor` and
// `loctrack-serve --monitor` exit with it.
extension GeofenceError {
    /// The exit code for this error (docs/exit-codes.md).
    public var exitCode: ExitCode {
        switch self {
        case .invalidLatitude, .invalidLongitude, .invalidRadius, .invalidGeometry, .invalidName,
             .invalidIdentifier, .invalidTitle, .unknownIdentifier:
            .usage
        case .corruptStateFile:
            .dataError
        case .stateFileIO:
            .outputFailed
        case .alreadyOpen, .alreadyRunning:
            .temporaryFailure
        }
    }
}
