import LocTrackMQTT
import LocTrackFormats
import LocTrackProcess
import LocTrackSinks

/// Every command and every option loctrack accepts: one table for the parser and the shell
/// completions, so that the two cannot drift apart.
///
/// ``ArgumentScanner`` rejects any option that is not in its command's entry, so an option
/// the parser handles but the table lacks cannot be used (its tests fail), and
/// `OptionTableTests` parses every entry, so an entry the parser does not handle fails too.
/// Choice lists come from the types the parser reads them into, never typed out again.
enum OptionTable {
    /// Every command path, parents before their subcommands.
    static let commands: [CommandSpec] = [
        root, stream, once, monitor, monitorAdd, monitorRemove, monitorList, monitorRun, monitorExport, serve, trips, odometer, help,
        completions,
        recordWriter,
    ]

    static let root = CommandSpec("", "GPS fixes from gpsd, one per epoch", options: [
        OptionSpec("--help", short: "-h", "show the overview of commands and options"),
        OptionSpec("--version", short: "-V", "print the version"),
    ])

    static let stream = CommandSpec("stream", "print every fix as it arrives, until interrupted", options: [
        OptionSpec("--min-accuracy", .number, "METERS", "only fixes whose eph is at most METERS (off: no limit)"),
        OptionSpec("--min-distance", .number, "METERS", "drop a fix closer than METERS to the last one"),
        OptionSpec("--interval", .number, "SECONDS", "at most one fix per SECONDS of receiver time"),
        OptionSpec("--count", .integer, "N", "exit 0 after N fixes"),
        OptionSpec("--duration", .number, "SECONDS", "exit 0 after SECONDS"),
        format(OutputFormat.allCases.map(\.rawValue)),
        noReconnect, verbose, helpOption,
    ] + recording + publishing + distance, operand: source)

    static let once = CommandSpec("once", "wait for one good fix, print it, exit", options: [
        OptionSpec("--min-accuracy", .number, "METERS", "accept only a fix whose eph is at most METERS"),
        OptionSpec("--timeout", .number, "SECONDS", "give up after SECONDS (default 30)"),
        OptionSpec("--max-age", .number, "SECONDS", "accept gpsd's latest fix if at most this old"),
        format(OutputFormat.allCases.map(\.rawValue)),
        trackerID, verbose, helpOption,
    ], operand: source)

    static let monitor = CommandSpec(
        "monitor", "named, persistent geofences: enter/leave events that do not flap", options: [helpOption])

    static let monitorAdd = CommandSpec("monitor add", "add a circle or GeoJSON regions", options: [
        OptionSpec("--circle", .text, "LAT,LON,R", "a circle of R metres around LAT,LON (degrees)"),
        OptionSpec("--geojson", .file, "FILE", "GeoJSON Polygons and MultiPolygons; - is stdin"),
        OptionSpec("--assume", .choice(MonitorCommand.Add.Assumption.allCases.map(\.rawValue)), "STATE",
                   "the state until a fix decides"),
        OptionSpec("--title", .text, "TEXT", "the region's display name (OwnTracks desc; default: the id)"),
        monitorName, helpOption,
    ], operand: OperandSpec(name: "ID", value: .text, isOptional: true))

    static let monitorRemove = CommandSpec("monitor remove", "remove a region", options: [monitorName, helpOption],
                                           operand: OperandSpec(name: "ID", value: .text, isOptional: false))

    static let monitorList = CommandSpec("monitor list", "list the regions and their states", options: [
        format(MonitorCommand.ListFormat.allCases.map(\.rawValue)),
        monitorName, helpOption,
    ])

    static let monitorRun = CommandSpec("monitor run", "print an event whenever a region's state changes", options: [
        format(MonitorCommand.Run.Format.allCases.map(\.rawValue)),
        OptionSpec("--dwell", .number, "SECONDS", "report a new state only after it held SECONDS"),
        monitorName, noReconnect, verbose, helpOption,
    ] + recording + publishing + distance, operand: source)

    static let monitorExport = CommandSpec("monitor export", "print the regions as OwnTracks waypoints", options: [
        format(MonitorCommand.ExportFormat.allCases.map(\.rawValue)),
        monitorName, helpOption,
    ])

    static let serve = CommandSpec("serve", "a live map and the receiver's status in the browser", options: [
        OptionSpec("--listen", .text, "ADDR:PORT", "answer on ADDR:PORT (default 127.0.0.1:8947; a PORT alone: 127.0.0.1)"),
        OptionSpec("--token-file", .file, "FILE", "its first line is the token every request needs"),
        OptionSpec("--monitor", .text, "NAME", "show this monitor's regions and their states"),
        OptionSpec("--dwell", .number, "SECONDS", "with --monitor: a new state only after it held SECONDS"),
        OptionSpec("--track", .file, "PATTERN", "also show today's fixes that stream --output PATTERN recorded"),
        OptionSpec("--tiles", .url, "URL-TEMPLATE", "base map tiles from http(s)://HOST/{z}/{x}/{y}.png"),
        OptionSpec("--tiles-attribution", .text, "TEXT", "the base map's attribution, shown on the map"),
        OptionSpec("--tiles-file", .file, "FILE", "an MBTiles chart: the first the base map, later ones overlays",
                   repeats: true),
        OptionSpec("--stale", .number, "SECONDS", "grey the fix after SECONDS without one (default 3)"),
        OptionSpec("--max-streams", .integer, "N", "at most N event streams at once (default 64)"),
        verbose, helpOption,
    ], operand: source)

    static let trips = CommandSpec("trips", "the trips in recorded track files (JSON lines, CSV, GPX, TCX, KML)", options: [
        format(TripsFormat.allCases.map(\.rawValue)),
        helpOption,
    ], operand: OperandSpec(name: "FILE", value: .file, isOptional: false, repeats: true))

    static let odometer = CommandSpec("odometer", "print the kept odometer, or set it to the vehicle's reading", options: [
        OptionSpec("--set", .number, "METERS", "set the odometer to METERS (stop loctrack first)"),
        OptionSpec("--odometer-file", .file, "FILE", "the odometer in FILE (default $XDG_STATE_HOME/loctrack/odometer)"),
        helpOption,
    ])

    static let help = CommandSpec("help", "explain a command", options: [],
                                  operand: OperandSpec(name: "COMMAND", value: .choice(HelpTopic.commands), isOptional: true))

    static let completions = CommandSpec("completions", "print a shell completion script", options: [helpOption],
                                         operand: OperandSpec(name: "SHELL",
                                                              value: .choice(CompletionShell.allCases.map(\.rawValue)),
                                                              isOptional: false))

    /// `__record-writer`, the track writer process `--output` starts (``RecordWriterOptions``).
    static let recordWriter = CommandSpec(RecordWriterOptions.commandName, "the track writer --output starts", options: [
        format(OutputFormat.allCases.map(\.rawValue)),
        OptionSpec("--sync", .number, "SECONDS", "fdatasync at most every SECONDS"),
        OptionSpec("--output", .file, "PATH", "the track file name pattern"),
    ], isHidden: true)

    // MARK: Options several commands share

    private static let helpOption = OptionSpec("--help", short: "-h", "show this command's help")
    private static let verbose = OptionSpec("--verbose", short: "-v", "report connection events on stderr")
    private static let noReconnect = OptionSpec("--no-reconnect", "exit 69 when gpsd is unavailable or goes away")
    private static let monitorName = OptionSpec("--name", .text, "NAME", "the monitor (default: default)")
    private static let trackerID = OptionSpec("--tid", .text, "XX", "OwnTracks tracker id, 1 or 2 letters or digits")
    private static let source = OperandSpec(name: "SOURCE", value: .text, isOptional: true)

    private static func format(_ choices: [String]) -> OptionSpec {
        OptionSpec("--format", .choice(choices), "FORMAT", "the output format")
    }

    /// `--output` and `--sync` (``RecordArguments``).
    private static let recording = [
        OptionSpec("--output", short: "-o", .file, "PATH", "write track files named by PATH (strftime fields); repeatable",
                   repeats: true),
        OptionSpec("--sync", .number, "SECONDS", "fdatasync the files at most every SECONDS"),
    ]

    /// `--odometer`, `--trips`, `--odometer-file` (``DistanceArguments``).
    private static let distance = [
        OptionSpec("--odometer", "each fix line carries the odometer (metres) and whether it is moving"),
        OptionSpec("--trips", "a TRIP line when a trip starts and when it ends (Traccar's rules)"),
        OptionSpec("--odometer-file", .file, "FILE", "keep the odometer in FILE (default $XDG_STATE_HOME/loctrack/odometer)"),
    ]

    /// `--publish` and its companions (``PublishArguments``); each companion belongs to
    /// the `--publish` before it, so all of them repeat.
    private static let publishing = [
        OptionSpec("--publish", .url, "URL",
                   "publish each line to mqtt[s]://[USER@]HOST[:PORT]/TOPIC, or each fix to Traccar at http[s]://HOST:PORT/?id=DEVICE; repeatable",
                   repeats: true),
        OptionSpec("--qos", .choice(PublishOptions.qosLevels.map(String.init)), "N", "MQTT quality of service",
                   repeats: true),
        OptionSpec("--retain", "the broker keeps the last message for new subscribers", repeats: true),
        OptionSpec("--client-id", .text, "ID", "MQTT client id (default loctrack-HOSTNAME)", repeats: true),
        OptionSpec("--cafile", .file, "FILE", "CA certificates for mqtts:// or https://", repeats: true),
        OptionSpec("--password-file", .file, "FILE", "its first line is the broker password", repeats: true),
        OptionSpec("--spool", .directory, "DIR", "messages wait here until the broker (or Traccar) has them", repeats: true),
        OptionSpec("--spool-limit", .text, "SIZE", "at most SIZE bytes spooled, then the oldest go", repeats: true),
        OptionSpec("--traccar-interval", .number, "SECONDS", "Traccar: a position at most every SECONDS (and at a change of motion)",
                   repeats: true),
        OptionSpec("--traccar-distance", .number, "METERS", "Traccar: also a position after METERS from the last one sent",
                   repeats: true),
        OptionSpec("--ha-discovery", "Home Assistant's MQTT discovery and states to this broker, not lines",
                   repeats: true),
        OptionSpec("--ha-prefix", .text, "PREFIX", "Home Assistant's discovery prefix (default homeassistant)",
                   repeats: true),
        OptionSpec("--ha-name", .text, "NAME", "the device's name in Home Assistant (default the host name)",
                   repeats: true),
        OptionSpec("--ha-node", .text, "ID", "the node id in discovery topics (default from --client-id)", repeats: true),
        OptionSpec("--ha-interval", .number, "SECONDS", "update Home Assistant at most every SECONDS (default 10)",
                   repeats: true),
        OptionSpec("--ha-max-error", .number, "METERS", "the tracker skips fixes with eph above METERS (default 100; 0: none)",
                   repeats: true),
        trackerID,
    ]
}
