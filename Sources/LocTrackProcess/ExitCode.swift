/// loctrack's exit codes, from sysexits.h (see docs/exit-codes.md). Here, at the bottom of
/// the layers, so that each error type says its own code in its own target (the monitor's,
/// the sinks', the web's) and the programs (`loctrack`, `loctrack-serve`, `loctrack-trips`)
/// only exit with it.
public enum ExitCode: Int32, Sendable {
    /// Done: `once` printed its fix, or a stream ended by SIGINT/SIGTERM or a closed pipe.
    case success = 0
    /// The command line is wrong (EX_USAGE).
    case usage = 64
    /// A monitor's state file is corrupt; it is left as it is (EX_DATAERR). `trips`: a
    /// track file was not wholly readable (corrupt, cut short, not a track).
    case dataError = 65
    /// `trips`: a track file is missing or cannot be read (EX_NOINPUT).
    case noInput = 66
    /// gpsd is unreachable, is not gpsd, refused the watch, or went away; or `serve` or
    /// `trips` finds no program to run (EX_UNAVAILABLE).
    case unavailable = 69
    /// `serve`: a file of its page is missing (its web folder, or Debian's Leaflet)
    /// (EX_OSFILE).
    case osFile = 72
    /// Writing the output, or a monitor's state file, failed for a reason other than a
    /// closed pipe (EX_IOERR).
    case outputFailed = 74
    /// Try again later (EX_TEMPFAIL): `once` found no acceptable fix before `--timeout`,
    /// or another process is running the same monitor.
    case temporaryFailure = 75
    /// `serve`: the `--token-file` is missing, unreadable, empty, not a token, or readable
    /// or writable by group or others (EX_CONFIG).
    case configuration = 78
    /// `once` was interrupted by SIGINT before it had a fix (128 + 2, as shells report it).
    case interrupted = 130
    /// `once` was stopped by SIGTERM before it had a fix (128 + 15).
    case terminated = 143

    /// `once` found no acceptable fix before `--timeout`.
    package static let noFixInTime = ExitCode.temporaryFailure
}
