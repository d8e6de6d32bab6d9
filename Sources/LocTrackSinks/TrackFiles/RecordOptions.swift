public import LocTrackFormats
/// `--output PATH` and `--sync SECONDS`: record to track files instead of stdout.
public struct RecordOptions: Equatable, Sendable {
    /// `--sync`'s default: at most this many seconds of fixes are lost to a power cut.
    public static let defaultSyncSeconds = 10.0
    /// `monitor run`'s: its events are few, and each is confirmed delivered (and so not
    /// delivered again by the next run) only once its file is synced.
    public static let defaultMonitorSyncSeconds = 0.0

    /// The file name, with `strftime` fields taken from each fix's UTC time.
    public var path: TrackPathPattern
    /// `fdatasync` at most this often; 0 after every batch.
    public var syncSeconds: Double

    public init(path: TrackPathPattern, syncSeconds: Double = defaultSyncSeconds) {
        self.path = path
        self.syncSeconds = syncSeconds
    }
}
