import LocTrack
public import LocTrackFormats

/// `loctrack __record-writer --format F --sync S --output PATH`: what ``RecordingSink``
/// starts. Not a command for people; its arguments are loctrack's own.
public struct RecordWriterOptions: Equatable, Sendable {
    public var format: OutputFormat
    public var path: TrackPathPattern
    public var syncSeconds: Double

    public init(format: OutputFormat, path: TrackPathPattern, syncSeconds: Double) {
        self.format = format
        self.path = path
        self.syncSeconds = syncSeconds
    }

    package static let commandName = "__record-writer"

    /// The arguments that start the writer for `options` (after the program name).
    package static func arguments(format: OutputFormat, options: RecordOptions) -> [String] {
        [commandName, "--format", format.rawValue, "--sync", "\(options.syncSeconds)", "--output", options.path.text]
    }
}
