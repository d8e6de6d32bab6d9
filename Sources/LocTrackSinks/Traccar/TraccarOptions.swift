public import LocTrackTraccar
import LocTrackSystem

/// One `--publish http(s)://HOST[:PORT]/?id=DEVICE` and its companions: a Traccar server
/// that gets each accepted fix as an OsmAnd position (docs/traccar.md).
public struct TraccarOptions: Equatable, Sendable {
    public var url: TraccarURL
    /// `--cafile`: the CAs an `https://` server is checked against (default: the system's).
    public var caFile: String?
    /// `--spool DIR` (nil: `$XDG_STATE_HOME/loctrack/spool/traccar-DEVICE`).
    public var spoolDirectory: String?
    /// `--spool-limit`: past it the oldest positions go, and that is said.
    public var spoolLimitBytes: Int64
    /// `--traccar-interval` and `--traccar-distance`: the thinning (neither: every fix).
    public var thinning: Thinning

    public init(
        url: TraccarURL, caFile: String? = nil, spoolDirectory: String? = nil, spoolLimitBytes: Int64,
        thinning: Thinning = Thinning()
    ) {
        self.url = url
        self.caFile = caFile
        self.spoolDirectory = spoolDirectory
        self.spoolLimitBytes = spoolLimitBytes
        self.thinning = thinning
    }

    /// `--spool` as given, else `spool/traccar-DEVICE` in loctrack's state folder, beside the
    /// brokers' spools (LocTrackSystem's `StateDirectory`), one per device id.
    /// - Returns: nil when there is no state folder (neither `XDG_STATE_HOME` nor `HOME` is an
    ///   absolute path, and the password database has no home).
    public func spoolDirectory(environment: [String: String]) -> String? {
        if let spoolDirectory { return spoolDirectory }
        return try? StateDirectory.spool(named: url.spoolFolderName, environment: environment)
    }
}
