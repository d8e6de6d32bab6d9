public import LocTrack
import LocTrackMonitor

/// `loctrack serve`'s command line (docs/serve.md), parsed. Both `loctrack serve` (which
/// checks it before it runs the server, so that a wrong command line gets its one line and
/// 64 even where the server is not installed) and the server `loctrack-serve` (which is
/// given the same words) parse it here.
public struct ServeOptions: Equatable, Sendable {
    public static let defaultStaleSeconds = 3.0
    public static let defaultMaximumStreams = 64

    /// `--listen`: default 127.0.0.1:8947.
    public var listen: ListenAddress
    /// `--token-file`: the token's file (read by the server); needed for any address that
    /// is not loopback.
    public var tokenFile: String?
    /// `--monitor NAME`: the monitor whose regions the page shows.
    public var monitor: String?
    /// `--dwell`: as `monitor run --dwell`, for the regions' states.
    public var dwellSeconds: Double
    /// `--track PATTERN`: the files `stream --output PATTERN` records, read for the day so far.
    public var track: TrackPathPattern?
    /// `--tiles` with `--tiles-attribution`; nil: no base map.
    public var tiles: TileSource?
    /// `--stale`: the page greys the fix after this many seconds without one.
    public var staleSeconds: Double
    /// `--max-streams`: event streams open at once; one more gets 503.
    public var maximumStreams: Int
    public var verbose: Bool
    public var source: GPSDSource
    /// `--help` or `-h` was given: show serve's help instead (what came after it is not read).
    public var helpRequested: Bool

    public init(
        listen: ListenAddress = .default, tokenFile: String? = nil, monitor: String? = nil, dwellSeconds: Double = 0,
        track: TrackPathPattern? = nil, tiles: TileSource? = nil, staleSeconds: Double = defaultStaleSeconds,
        maximumStreams: Int = defaultMaximumStreams, verbose: Bool = false, source: GPSDSource = .default,
        helpRequested: Bool = false
    ) {
        self.listen = listen
        self.tokenFile = tokenFile
        self.monitor = monitor
        self.dwellSeconds = dwellSeconds
        self.track = track
        self.tiles = tiles
        self.staleSeconds = staleSeconds
        self.maximumStreams = maximumStreams
        self.verbose = verbose
        self.source = source
        self.helpRequested = helpRequested
    }

    /// `loctrack help serve`'s text, for `loctrack-serve --help`.
    public static var helpText: String { HelpText.serve }

    /// Parses the words after `serve` (for `loctrack-serve`, after the program name).
    /// Pure: nothing is read, not even the token file.
    /// - Throws: ``UsageError`` naming the offending argument.
    public init(arguments: [String]) throws(UsageError) {
        self.init()
        var sawSource = false
        var tilesTemplate: String?
        var attribution: String?
        var dwellGiven = false
        var scanner = ArgumentScanner(arguments[...], command: OptionTable.serve)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                helpRequested = true
                return
            case .option("--listen"):
                let text = try scanner.value(for: "--listen")
                do {
                    listen = try ListenAddress(parsing: text)
                } catch {
                    throw UsageError.invalidValue(text, option: "--listen", expected: error.expected)
                }
            case .option("--token-file"):
                tokenFile = try scanner.path(for: "--token-file", expected: "a file name")
            case .option("--monitor"):
                let name = try scanner.value(for: "--monitor")
                guard MonitorStore.isValidName(name) else {
                    throw UsageError.invalidValue(
                        name, option: "--monitor", expected: "1 to 64 letters, digits, '-', '_' or '.', not starting with '.'")
                }
                monitor = name
            case .option("--dwell"):
                dwellSeconds = try scanner.nonNegativeNumber(for: "--dwell", unit: "seconds")
                dwellGiven = true
            case .option("--track"):
                let text = try scanner.value(for: "--track")
                do {
                    track = try TrackPathPattern(text)
                } catch {
                    throw UsageError.invalidValue(text, option: "--track", expected: error.expected)
                }
            case .option("--tiles"):
                tilesTemplate = try scanner.value(for: "--tiles")
            case .option("--tiles-attribution"):
                attribution = try scanner.value(for: "--tiles-attribution")
            case .option("--stale"):
                staleSeconds = try scanner.positiveNumber(for: "--stale", unit: "seconds")
            case .option("--max-streams"):
                maximumStreams = try scanner.positiveInteger(for: "--max-streams")
            case .option("--verbose"), .option("-v"):
                verbose = true
            case .option(let name):
                throw UsageError.unknownOption(name, command: "serve")
            case .positional(let text):
                guard !sawSource else { throw UsageError.unexpectedArgument(text, command: "serve") }
                source = try Command.source(text)
                sawSource = true
            }
        }
        if let tilesTemplate {
            do {
                tiles = try TileSource(template: tilesTemplate, attribution: attribution ?? "")
            } catch {
                let value = error.option == "--tiles" ? tilesTemplate : attribution ?? ""
                throw UsageError.invalidValue(value, option: error.option, expected: error.expected)
            }
        } else if attribution != nil {
            throw UsageError.needs("--tiles-attribution", what: "--tiles")
        }
        if dwellGiven, monitor == nil {
            throw UsageError.needs("--dwell", what: "--monitor")
        }
        if !listen.isLoopback, tokenFile == nil {
            throw UsageError.listenNeedsToken(listen.description)
        }
    }
}
