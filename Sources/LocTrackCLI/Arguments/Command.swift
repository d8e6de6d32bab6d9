public import LocTrackServeOptions
public import LocTrack
public import LocTrackMQTT
public import LocTrackFormats
public import LocTrackProcess
public import LocTrackSinks

/// A parsed command line. Parsing is pure: no I/O, no globals, only `throws`.
public enum Command: Equatable, Sendable {
    case stream(StreamOptions)
    case once(OnceOptions)
    /// `loctrack monitor …`: persistent geofences.
    case monitor(MonitorCommand)
    /// `loctrack serve …`: checked here, then run by the server program `loctrack-serve`.
    case serve(ServeOptions)
    /// `loctrack trips FILE…`: checked here, then run by the program `loctrack-trips`.
    case trips(TripsOptions)
    /// `loctrack odometer [--set METERS]`: print the kept odometer, or set it.
    case odometer(OdometerOptions)
    /// `loctrack help [COMMAND]`, `--help`, `-h`: print help for `topic` (nil: overview).
    case help(topic: HelpTopic)
    case version
    /// `loctrack __record-writer …`: the track writer `--output` starts (not for people).
    case recordWriter(RecordWriterOptions)
    /// `loctrack completions bash|zsh|fish`: print the shell's completion script.
    case completions(CompletionShell)

    public struct StreamOptions: Equatable, Sendable {
        public var minimumAccuracy: Double?
        /// `--min-distance`: metres from the last delivered fix.
        public var minimumDistance: Double?
        /// `--interval`: seconds of receiver time between delivered fixes.
        public var intervalSeconds: Double?
        /// `--count`: exit 0 after this many delivered fixes.
        public var count: Int?
        /// `--duration`: exit 0 after this many seconds.
        public var durationSeconds: Double?
        public var format: OutputFormat?
        public var source: GPSDSource = .default
        /// Wait and reconnect when gpsd is unavailable (`--no-reconnect` turns it off).
        public var reconnect = true
        /// Report every connection event and skipped report on stderr.
        public var verbose = false
        /// Where the fixes go, as specs: each `--publish URL` with its companions (a broker,
        /// Home Assistant, a Traccar server, a UDP listener) in the order given, then each
        /// `--output PATH` with `--sync`; none: stdout.
        package var sinks: [AnySinkSpec]
        /// `--tid`: the tracker id of `--format owntracks` (nil: from the host name).
        /// The same value is every broker's `tid`.
        public var trackerID: String?
        /// The largest `eph` (metres) a fix may have to be published to a broker; a fix without
        /// one is not published. Set to ``ownTracksAccuracyLimit`` for `--publish` with
        /// `--format owntracks` unless `--min-accuracy` is given (a number or `off`); nil: no
        /// limit beyond ``minimumAccuracy``. Other sinks are not affected.
        public var brokerAccuracyLimit: Double?
        /// `--odometer`, `--trips`, `--odometer-file`.
        public var distance = DistanceOptions()

        /// The default limit for OwnTracks messages to a broker: Home Assistant counts a device
        /// as inside every zone its `acc` circle reaches, so one 1,900 m fix can put it in a zone
        /// a kilometre away.
        public static let ownTracksAccuracyLimit = 100.0

        public init(
            minimumAccuracy: Double? = nil, minimumDistance: Double? = nil, intervalSeconds: Double? = nil,
            count: Int? = nil, durationSeconds: Double? = nil,
            format: OutputFormat? = nil, source: GPSDSource = .default,
            reconnect: Bool = true, verbose: Bool = false,
            publishes: [PublishOptions] = [], trackerID: String? = nil, records: [RecordOptions] = [],
            brokerAccuracyLimit: Double? = nil
        ) {
            self.brokerAccuracyLimit = brokerAccuracyLimit
            self.minimumAccuracy = minimumAccuracy
            self.minimumDistance = minimumDistance
            self.intervalSeconds = intervalSeconds
            self.count = count
            self.durationSeconds = durationSeconds
            self.format = format
            self.source = source
            self.reconnect = reconnect
            self.verbose = verbose
            sinks = publishes.map(MQTTSinkSpec.spec(for:)) + records.map { AnySinkSpec(TrackFileSinkSpec($0)) }
            self.trackerID = trackerID
        }
    }

    public struct OnceOptions: Equatable, Sendable {
        public static let defaultTimeoutSeconds = 30.0
        public static let defaultMaximumAgeSeconds = 2.0

        public var minimumAccuracy: Double?
        public var timeoutSeconds: Double = defaultTimeoutSeconds
        /// Accept gpsd's latest fix if no older than this (by gpsd's clock); 0 waits for a new one.
        public var maximumAgeSeconds: Double = defaultMaximumAgeSeconds
        public var format: OutputFormat?
        public var source: GPSDSource = .default
        public var verbose = false
        /// `--tid`: the tracker id of `--format owntracks` (nil: from the host name).
        public var trackerID: String?

        public init(
            minimumAccuracy: Double? = nil, timeoutSeconds: Double = defaultTimeoutSeconds,
            maximumAgeSeconds: Double = defaultMaximumAgeSeconds,
            format: OutputFormat? = nil, source: GPSDSource = .default, verbose: Bool = false,
            trackerID: String? = nil
        ) {
            self.minimumAccuracy = minimumAccuracy
            self.timeoutSeconds = timeoutSeconds
            self.maximumAgeSeconds = maximumAgeSeconds
            self.format = format
            self.source = source
            self.verbose = verbose
            self.trackerID = trackerID
        }
    }

    /// Parses the arguments after the program name.
    /// - Throws: ``UsageError`` naming the offending argument.
    public init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        guard let first = remaining.popFirst() else { throw UsageError.missingCommand }
        switch first {
        case "stream":
            self = try Self.parseStream(remaining)
        case "once":
            self = try Self.parseOnce(remaining)
        case "monitor":
            self = try MonitorCommand.parse(remaining)
        case "serve":
            let options = try ServeOptions(arguments: Array(remaining))
            self = options.helpRequested ? .help(topic: .serve) : .serve(options)
        case "trips":
            self = try Self.parseTrips(remaining)
        case "odometer":
            self = try Self.parseOdometer(remaining)
        case "help":
            guard let name = remaining.popFirst() else {
                self = .help(topic: .overview)
                return
            }
            if let extra = remaining.first { throw UsageError.unexpectedArgument(extra, command: "help") }
            guard let topic = HelpTopic(rawValue: name), topic != .overview else { throw UsageError.unknownCommand(name) }
            self = .help(topic: topic)
        case "completions":
            self = try Self.parseCompletions(remaining)
        case RecordWriterOptions.commandName:
            self = .recordWriter(try RecordWriterOptions.parse(remaining))
        case _ where first.hasPrefix("-"):
            // loctrack's own options, checked against the table like every command's.
            guard OptionTable.root.option(named: first) != nil else { throw UsageError.unknownOption(first, command: nil) }
            switch first {
            case "--help", "-h": self = .help(topic: .overview)
            case "--version", "-V": self = .version
            default: throw UsageError.unknownOption(first, command: nil)
            }
        default:
            throw UsageError.unknownCommand(first)
        }
    }

    private static func parseStream(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var options = StreamOptions()
        var accuracyGiven = false
        var sawSource = false
        var publishing = PublishArguments()
        var recording = RecordArguments()
        var distance = DistanceArguments()
        var scanner = ArgumentScanner(arguments, command: OptionTable.stream)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                return .help(topic: .stream)
            case .option("--min-accuracy"):
                options.minimumAccuracy = try scanner.accuracyLimit(for: "--min-accuracy")
                accuracyGiven = true
            case .option("--format"):
                options.format = try scanner.format()
            case .option("--min-distance"):
                options.minimumDistance = try scanner.positiveNumber(for: "--min-distance", unit: "metres")
            case .option("--interval"):
                options.intervalSeconds = try scanner.positiveNumber(for: "--interval", unit: "seconds")
            case .option("--count"):
                options.count = try scanner.positiveInteger(for: "--count")
            case .option("--duration"):
                options.durationSeconds = try scanner.positiveNumber(for: "--duration", unit: "seconds")
            case .option("--no-reconnect"):
                options.reconnect = false
            case .option("--verbose"), .option("-v"):
                options.verbose = true
            case .option(let name):
                // Each collector in turn (`||` would lose the typed throw).
                guard try recording.take(name, from: &scanner) ? true
                    : publishing.take(name, from: &scanner) ? true : distance.take(name, from: &scanner)
                else {
                    throw UsageError.unknownOption(name, command: "stream")
                }
            case .positional(let text):
                guard !sawSource else { throw UsageError.unexpectedArgument(text, command: "stream") }
                options.source = try source(text)
                sawSource = true
            }
        }
        let publishes = try publishing.options(trackerIDAlone: true)
        options.sinks = try publishing.specs(trackerIDAlone: true) + recording.options().map { AnySinkSpec(TrackFileSinkSpec($0)) }
        options.trackerID = publishing.tid
        options.distance = distance.options
        if publishes.isEmpty, options.trackerID != nil, options.format != .owntracks {
            throw UsageError.needs("--tid", what: "--publish or --format owntracks")
        }
        if publishes.contains(where: { $0.homeAssistant == nil }), options.format == .csv || options.format == .gpx {
            throw UsageError.publishNeedsLineFormat
        }
        if !accuracyGiven, !publishes.isEmpty, options.format == .owntracks {
            options.brokerAccuracyLimit = StreamOptions.ownTracksAccuracyLimit
        }
        return .stream(options)
    }

    private static func parseOnce(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var options = OnceOptions()
        var sawSource = false
        var scanner = ArgumentScanner(arguments, command: OptionTable.once)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                return .help(topic: .once)
            case .option("--min-accuracy"):
                options.minimumAccuracy = try scanner.positiveNumber(for: "--min-accuracy", unit: "metres")
            case .option("--timeout"):
                options.timeoutSeconds = try scanner.positiveNumber(for: "--timeout", unit: "seconds")
            case .option("--max-age"):
                options.maximumAgeSeconds = try scanner.nonNegativeNumber(for: "--max-age", unit: "seconds")
            case .option("--format"):
                options.format = try scanner.format()
            case .option("--verbose"), .option("-v"):
                options.verbose = true
            case .option("--tid"):
                options.trackerID = try scanner.trackerID()
            case .option(let name):
                throw UsageError.unknownOption(name, command: "once")
            case .positional(let text):
                guard !sawSource else { throw UsageError.unexpectedArgument(text, command: "once") }
                options.source = try source(text)
                sawSource = true
            }
        }
        if options.trackerID != nil, options.format != .owntracks {
            throw UsageError.needs("--tid", what: "--format owntracks")
        }
        return .once(options)
    }

    private static func parseTrips(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var options = TripsOptions(files: [])
        var scanner = ArgumentScanner(arguments, command: OptionTable.trips)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                return .help(topic: .trips)
            case .option("--format"):
                let text = try scanner.value(for: "--format")
                guard let format = TripsFormat(rawValue: text) else {
                    throw UsageError.invalidValue(
                        text, option: "--format", expected: "one of " + TripsFormat.allCases.map(\.rawValue).joined(separator: ", "))
                }
                options.format = format
            case .option(let name):
                throw UsageError.unknownOption(name, command: "trips")
            case .positional(let file):
                guard !file.isEmpty else { throw UsageError.invalidArgument(file, command: "trips", expected: "a file name") }
                options.files.append(file)
            }
        }
        guard !options.files.isEmpty else { throw UsageError.missingArgument(command: "trips", expected: "at least one track file") }
        return .trips(options)
    }

    private static func parseOdometer(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var options = OdometerOptions()
        var scanner = ArgumentScanner(arguments, command: OptionTable.odometer)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                return .help(topic: .odometer)
            case .option("--set"):
                options.setMetres = try scanner.nonNegativeNumber(for: "--set", unit: "metres")
            case .option("--odometer-file"):
                options.file = try scanner.value(for: "--odometer-file")
            case .option(let name):
                throw UsageError.unknownOption(name, command: "odometer")
            case .positional(let text):
                throw UsageError.unexpectedArgument(text, command: "odometer")
            }
        }
        return .odometer(options)
    }

    private static func parseCompletions(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        var shell: CompletionShell?
        var scanner = ArgumentScanner(arguments, command: OptionTable.completions)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                return .help(topic: .completions)
            case .option(let name):
                throw UsageError.unknownOption(name, command: "completions")
            case .positional(let text):
                guard shell == nil else { throw UsageError.unexpectedArgument(text, command: "completions") }
                guard let chosen = CompletionShell(rawValue: text) else {
                    throw UsageError.invalidArgument(text, command: "completions", expected: CompletionShell.names)
                }
                shell = chosen
            }
        }
        guard let shell else { throw UsageError.missingArgument(command: "completions", expected: CompletionShell.names) }
        return .completions(shell)
    }

    static func source(_ text: String) throws(UsageError) -> GPSDSource {
        do {
            return try GPSDSource(parsing: text)
        } catch {
            throw UsageError.invalidSource(error.reason)
        }
    }
}

/// What `help` can explain.
public enum HelpTopic: String, Equatable, Sendable, CaseIterable {
    case overview
    case stream
    case once
    case monitor
    case serve
    case trips
    case odometer
    case help
    case completions

    /// The names `loctrack help NAME` takes: every topic but the overview.
    static var commands: [String] { allCases.filter { $0 != .overview }.map(\.rawValue) }
}
