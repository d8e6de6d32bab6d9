public import LocTrackFormats
public import LocTrack

/// What `loctrack serve` was asked for (docs/serve.md): the server's whole configuration.
///
/// `loctrack serve` parses its words into this once (LocTrackCLI's `ServeArguments`, so that
/// a wrong command line gets its one line and 64 even where the server is not installed),
/// then becomes `loctrack-serve` (exec) and hands it this value in one form,
/// ``handoffArguments`` (a JSON object), which the server reads back with
/// ``init(handoff:)``: the user's words are never parsed twice.
public struct ServeOptions: Equatable, Sendable {
    public static let defaultStaleSeconds = 3.0
    public static let defaultMaximumStreams = 64
    /// `--tiles-file` at most this often: a layer switch, not a chart library.
    public static let mostTileFiles = 16

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
    /// `--tiles-file`, in order: MBTiles charts, the first the base map, later ones overlays
    /// (opened and checked by the server, which links SQLite: docs/serve.md, "Charts").
    public var tileFiles: [String]
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
        track: TrackPathPattern? = nil, tiles: TileSource? = nil, tileFiles: [String] = [], staleSeconds: Double = defaultStaleSeconds,
        maximumStreams: Int = defaultMaximumStreams, verbose: Bool = false, source: GPSDSource = .default,
        helpRequested: Bool = false
    ) {
        self.listen = listen
        self.tokenFile = tokenFile
        self.monitor = monitor
        self.dwellSeconds = dwellSeconds
        self.track = track
        self.tiles = tiles
        self.tileFiles = tileFiles
        self.staleSeconds = staleSeconds
        self.maximumStreams = maximumStreams
        self.verbose = verbose
        self.source = source
        self.helpRequested = helpRequested
    }
}
