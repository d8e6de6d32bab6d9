/// `--output PATH` and `--sync SECONDS`: record to track files instead of stdout.
public struct RecordOptions: Equatable, Sendable {
    /// `--sync`'s default: at most this many seconds of fixes are lost to a power cut.
    public static let defaultSyncSeconds = 10.0

    /// The file name, with `strftime` fields taken from each fix's UTC time.
    public var path: TrackPathPattern
    /// `fdatasync` at most this often; 0 after every batch.
    public var syncSeconds: Double

    public init(path: TrackPathPattern, syncSeconds: Double = defaultSyncSeconds) {
        self.path = path
        self.syncSeconds = syncSeconds
    }
}

/// Collects `--output` and `--sync` while `stream` or `monitor run` scans its arguments,
/// then checks them together: one place for both commands.
struct RecordArguments {
    private var path: TrackPathPattern?
    private var syncSeconds: Double?

    /// Takes `option` and its value when it is a recording option.
    /// - Returns: false when `option` is not one.
    mutating func take(_ option: String, from scanner: inout ArgumentScanner) throws(UsageError) -> Bool {
        switch option {
        case "--output", "-o":
            let text = try scanner.value(for: "--output")
            do {
                path = try TrackPathPattern(text)
            } catch {
                throw .invalidValue(text, option: "--output", expected: error.expected)
            }
        case "--sync":
            syncSeconds = try scanner.nonNegativeNumber(for: "--sync", unit: "seconds")
        default:
            return false
        }
        return true
    }

    /// The options, or nil without `--output`.
    /// - Throws: `--sync` without `--output`; `--output` with `--publish` (one destination).
    func options(publishing: Bool) throws(UsageError) -> RecordOptions? {
        guard let path else {
            if syncSeconds != nil { throw .needs("--sync", what: "--output") }
            return nil
        }
        if publishing { throw .conflictingOptions("--output", "--publish") }
        return RecordOptions(path: path, syncSeconds: syncSeconds ?? RecordOptions.defaultSyncSeconds)
    }
}
