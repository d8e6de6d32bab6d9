public import LocTrack
public import LocTrackMonitor
public import LocTrackMQTT
import LocTrackFormats
public import LocTrackSinks

/// `loctrack monitor add|remove|list|run|export`, parsed.
public enum MonitorCommand: Equatable, Sendable {
    case add(Add)
    case remove(identifier: String, name: String)
    case list(name: String, format: ListFormat)
    case run(Run)
    /// `export [--name NAME] [--format owntracks]`: the regions as an OwnTracks `waypoints` message.
    case export(name: String, format: ExportFormat)

    public static let defaultName = "default"

    /// `monitor export --format`: only OwnTracks' `waypoints` message so far.
    public enum ExportFormat: String, Equatable, Sendable, CaseIterable {
        case owntracks
    }

    /// `add ID --circle LAT,LON,RADIUS` or `add [ID] --geojson FILE`.
    public struct Add: Equatable, Sendable {
        public enum Region: Equatable, Sendable {
            case circle(latitude: Double, longitude: Double, radius: Double)
            /// A GeoJSON file (or `-` for stdin), read when the command runs.
            case geoJSON(path: String)
        }

        /// `--assume`'s values.
        public enum Assumption: String, Equatable, Sendable, CaseIterable {
            case inside, outside

            public var state: GeofenceState {
                switch self {
                case .inside: .satisfied
                case .outside: .unsatisfied
                }
            }
        }

        public var identifier: String?
        public var region: Region
        public var name: String = MonitorCommand.defaultName
        /// `--assume inside|outside`; nil: unknown until a fix decides.
        public var assumedState: GeofenceState?
        /// `--title TEXT`: the region's display name (OwnTracks' `desc`); nil: GeoJSON's
        /// `properties.name`, else none (the id is shown).
        public var title: String?

        public init(identifier: String?, region: Region, name: String = MonitorCommand.defaultName,
                    assumedState: GeofenceState? = nil, title: String? = nil) {
            self.identifier = identifier
            self.region = region
            self.name = name
            self.assumedState = assumedState
            self.title = title
        }
    }

    public enum ListFormat: String, Equatable, Sendable, CaseIterable {
        case json, text
    }

    /// `run`: the monitor's events, one line each, until a signal.
    public struct Run: Equatable, Sendable {
        public enum Format: String, Equatable, Sendable, CaseIterable {
            case json, text, owntracks
        }

        public var name: String = MonitorCommand.defaultName
        /// nil: text on a terminal, else json.
        public var format: Format?
        public var dwellSeconds: Double = 0
        public var source: GPSDSource = .default
        public var reconnect = true
        public var verbose = false
        /// Where the events go, as specs: each `--publish URL` with its companions in the
        /// order given (a broker gets each event on TOPIC/event; Home Assistant and Traccar
        /// also every fix the monitor reads; a UDP listener the fixes alone), then each
        /// `--output PATH` with `--sync` (files of events); none: stdout.
        package var sinks: [AnySinkSpec]
        /// `--tid`: the tracker id of `--format owntracks` transitions (nil: from the host
        /// name), the same as the locations'. Also every broker's `tid`.
        public var trackerID: String?
        /// `--odometer`, `--trips`, `--odometer-file`.
        public var distance = DistanceOptions()

        public init(name: String = MonitorCommand.defaultName, format: Format? = nil, dwellSeconds: Double = 0,
                    source: GPSDSource = .default, reconnect: Bool = true, verbose: Bool = false,
                    publishes: [PublishOptions] = [], records: [RecordOptions] = [], trackerID: String? = nil) {
            self.trackerID = trackerID
            self.name = name
            self.format = format
            self.dwellSeconds = dwellSeconds
            self.source = source
            self.reconnect = reconnect
            self.verbose = verbose
            sinks = publishes.map(MQTTSinkSpec.spec(for:)) + records.map { AnySinkSpec(TrackFileSinkSpec($0)) }
        }
    }
}

extension MonitorCommand {
    /// Parses what follows `loctrack monitor`.
    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var remaining = arguments
        guard let action = remaining.popFirst() else { throw UsageError.missingSubcommand(command: "monitor") }
        switch action {
        case "add": return try parseAdd(remaining)
        case "remove": return try parseRemove(remaining)
        case "list": return try parseList(remaining)
        case "run": return try parseRun(remaining)
        case "export": return try parseExport(remaining)
        case _ where action.hasPrefix("-"):
            // monitor's own options (only --help), checked against the table like every command's.
            guard OptionTable.monitor.option(named: action)?.long == "--help" else {
                throw UsageError.unknownOption(action, command: "monitor")
            }
            return .help(topic: .monitor)
        default: throw UsageError.unknownSubcommand(action, command: "monitor")
        }
    }

    private static func parseAdd(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var identifier: String?
        var region: Add.Region?
        var name = defaultName
        var assumed: GeofenceState?
        var title: String?
        var scanner = ArgumentScanner(arguments, command: OptionTable.monitorAdd)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                return .help(topic: .monitor)
            case .option("--circle"):
                guard region == nil else { throw UsageError.conflictingOptions("--circle", "--geojson") }
                region = try circle(scanner.value(for: "--circle"))
            case .option("--geojson"):
                guard region == nil else { throw UsageError.conflictingOptions("--circle", "--geojson") }
                region = .geoJSON(path: try scanner.value(for: "--geojson"))
            case .option("--name"):
                name = try scanner.value(for: "--name")
            case .option("--assume"):
                let text = try scanner.value(for: "--assume")
                guard let assumption = Add.Assumption(rawValue: text) else {
                    throw UsageError.invalidValue(text, option: "--assume", expected: "inside or outside")
                }
                assumed = assumption.state
            case .option("--title"):
                let text = try scanner.value(for: "--title")
                guard !text.isEmpty, text.utf8.count <= 200,
                      !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                else {
                    throw UsageError.invalidValue(text, option: "--title", expected: "1 to 200 characters without control characters")
                }
                title = text
            case .option(let option):
                throw UsageError.unknownOption(option, command: "monitor add")
            case .positional(let text):
                guard identifier == nil else { throw UsageError.unexpectedArgument(text, command: "monitor add") }
                identifier = text
            }
        }
        guard let region else { throw UsageError.missingRegion }
        if case .circle = region, identifier == nil { throw UsageError.missingIdentifier(command: "monitor add") }
        return .monitor(.add(Add(identifier: identifier, region: region, name: name, assumedState: assumed, title: title)))
    }

    /// `LAT,LON,RADIUS`: degrees in range and a positive radius in metres.
    private static func circle(_ text: String) throws(UsageError) -> Add.Region {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.map { Double(String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())) }
        guard parts.count == 3, let latitude = numbers[0], let longitude = numbers[1], let radius = numbers[2] else {
            throw UsageError.invalidValue(text, option: "--circle", expected: "LAT,LON,RADIUS (degrees, degrees, metres)")
        }
        guard latitude.isFinite, abs(latitude) <= 90 else {
            throw UsageError.invalidValue(text, option: "--circle", expected: "a latitude from -90 to 90")
        }
        guard longitude.isFinite, abs(longitude) <= 180 else {
            throw UsageError.invalidValue(text, option: "--circle", expected: "a longitude from -180 to 180")
        }
        guard radius.isFinite, radius > 0 else {
            throw UsageError.invalidValue(text, option: "--circle", expected: "a radius of more than 0 metres")
        }
        return .circle(latitude: latitude, longitude: longitude, radius: radius)
    }

    private static func parseRemove(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var identifier: String?
        var name = defaultName
        var scanner = ArgumentScanner(arguments, command: OptionTable.monitorRemove)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"): return .help(topic: .monitor)
            case .option("--name"): name = try scanner.value(for: "--name")
            case .option(let option): throw UsageError.unknownOption(option, command: "monitor remove")
            case .positional(let text):
                guard identifier == nil else { throw UsageError.unexpectedArgument(text, command: "monitor remove") }
                identifier = text
            }
        }
        guard let identifier else { throw UsageError.missingIdentifier(command: "monitor remove") }
        return .monitor(.remove(identifier: identifier, name: name))
    }

    private static func parseList(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        guard let (name, format) = try parseNameAndFormat(
            arguments, command: OptionTable.monitorList, format: ListFormat.text, expected: "json or text")
        else { return .help(topic: .monitor) }
        return .monitor(.list(name: name, format: format))
    }

    private static func parseExport(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        guard let (name, format) = try parseNameAndFormat(
            arguments, command: OptionTable.monitorExport, format: ExportFormat.owntracks, expected: "owntracks")
        else { return .help(topic: .monitor) }
        return .monitor(.export(name: name, format: format))
    }

    /// `monitor list` and `monitor export` take the same two options: `--name`, and a
    /// `--format` of their own whose default is `format`.
    /// - Returns: nil when `--help` was asked for.
    private static func parseNameAndFormat<Format: RawRepresentable<String>>(
        _ arguments: ArraySlice<String>, command: CommandSpec, format defaultFormat: Format, expected: String
    ) throws(UsageError) -> (name: String, format: Format)? {
        var name = defaultName
        var format = defaultFormat
        var scanner = ArgumentScanner(arguments, command: command)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"): return nil
            case .option("--name"): name = try scanner.value(for: "--name")
            case .option("--format"):
                let text = try scanner.value(for: "--format")
                guard let chosen = Format(rawValue: text) else {
                    throw UsageError.invalidValue(text, option: "--format", expected: expected)
                }
                format = chosen
            case .option(let option): throw UsageError.unknownOption(option, command: command.path)
            case .positional(let text): throw UsageError.unexpectedArgument(text, command: command.path)
            }
        }
        return (name, format)
    }

    private static func parseRun(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var options = Run()
        var sawSource = false
        var publishing = PublishArguments()
        var recording = RecordArguments()
        var distance = DistanceArguments()
        var scanner = ArgumentScanner(arguments, command: OptionTable.monitorRun)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"): return .help(topic: .monitor)
            case .option("--name"): options.name = try scanner.value(for: "--name")
            case .option("--format"):
                let text = try scanner.value(for: "--format")
                guard let format = Run.Format(rawValue: text) else {
                    throw UsageError.invalidValue(text, option: "--format", expected: "json, text or owntracks")
                }
                options.format = format
            case .option("--dwell"): options.dwellSeconds = try scanner.nonNegativeNumber(for: "--dwell", unit: "seconds")
            case .option("--no-reconnect"): options.reconnect = false
            case .option("--verbose"), .option("-v"): options.verbose = true
            case .option(let option):
                // Each collector in turn (`||` would lose the typed throw).
                guard try recording.take(option, from: &scanner) ? true
                    : publishing.take(option, from: &scanner) ? true : distance.take(option, from: &scanner)
                else {
                    throw UsageError.unknownOption(option, command: "monitor run")
                }
            case .positional(let text):
                guard !sawSource else { throw UsageError.unexpectedArgument(text, command: "monitor run") }
                options.source = try Command.source(text)
                sawSource = true
            }
        }
        let publishes = try publishing.options(trackerIDAlone: true)
        options.sinks = try publishing.specs(trackerIDAlone: true)
            + recording.options(defaultSync: RecordOptions.defaultMonitorSyncSeconds).map { AnySinkSpec(TrackFileSinkSpec($0)) }
        options.trackerID = publishing.tid
        options.distance = distance.options
        if publishes.isEmpty, options.trackerID != nil, options.format != .owntracks {
            throw UsageError.needs("--tid", what: "--publish or --format owntracks")
        }
        return .monitor(.run(options))
    }
}
