/// What `stream` and `monitor run` were asked to measure: the odometer on each fix line
/// (`--odometer`), trip starts and ends as lines (`--trips`), and where the odometer is kept
/// (`--odometer-file`). A Traccar sink measures too, whatever these say: each position it
/// sends carries the odometer.
public struct DistanceOptions: Equatable, Sendable {
    /// `--odometer`: each fix line (JSON, GeoJSON, text; MQTT JSON) carries `odometer` and `moving`.
    public var odometerOnLines = false
    /// `--trips`: a `TRIP` line when a trip starts and when it ends.
    public var trips = false
    /// `--odometer-file FILE`: where the odometer is kept across restarts (nil: the default,
    /// `$XDG_STATE_HOME/loctrack/odometer`).
    public var odometerFile: String?

    public init(odometerOnLines: Bool = false, trips: Bool = false, odometerFile: String? = nil) {
        self.odometerOnLines = odometerOnLines
        self.trips = trips
        self.odometerFile = odometerFile
    }

    /// Whether anything asks for distance on the command's own output.
    public var measuresForOutput: Bool { odometerOnLines || trips }
}

/// Collects ``DistanceOptions`` while a command scans its arguments.
struct DistanceArguments {
    private(set) var options = DistanceOptions()

    /// Takes `option` (and its value) when it is a distance option.
    /// - Returns: false when it is not one.
    mutating func take(_ option: String, from scanner: inout ArgumentScanner) throws(UsageError) -> Bool {
        switch option {
        case "--odometer": options.odometerOnLines = true
        case "--trips": options.trips = true
        case "--odometer-file": options.odometerFile = try scanner.value(for: option)
        default: return false
        }
        return true
    }
}

/// `loctrack odometer`: the odometer kept in `--odometer-file` (or the default file), printed,
/// or set to `--set METERS` (the vehicle's own reading).
public struct OdometerOptions: Equatable, Sendable {
    /// `--set METERS`; nil: print it.
    public var setMetres: Double?
    /// `--odometer-file FILE` (nil: `$XDG_STATE_HOME/loctrack/odometer`).
    public var file: String?

    public init(setMetres: Double? = nil, file: String? = nil) {
        self.setMetres = setMetres
        self.file = file
    }
}
