package import LocTrackFormats

/// What the command gives every sink it starts: the formats it writes (the command's
/// choice: `stream` writes fixes, `monitor run` its events), where a broker's messages go,
/// and the command's settings. A spec takes what concerns its kind and ignores the rest.
package struct SinkStartContext {
    /// stdout's records.
    package var standardOutput: () -> any SinkEncoder
    /// A broker's messages (`--publish mqtt://`), each encoded on its own.
    package var messages: () -> any SinkEncoder
    /// A track file's frames, and the files' format, for one `--output`.
    package var trackFile: (RecordOptions) -> (encoder: any SinkEncoder, format: OutputFormat)
    /// `--format` as given, for a sink whose own format depends on it (a UDP sink sends
    /// JSON with `--format json`, else NMEA 0183); nil when none was given.
    package var formatGiven: OutputFormat?
    /// What follows a broker URL's topic (`stream`: nothing; `monitor run`: `/event`).
    package var topicSuffix = ""
    /// The messages are OwnTracks messages: each broker gets an OwnTracks last will.
    package var ownTracks = false
    /// `monitor run`: Home Assistant also gets the monitor's regions.
    package var regions = false
    package var verbose = false
    /// Where spool folders and passwords are looked up.
    package var environment: [String: String]
    /// Set by the pipeline: the sink has no company, so it may wait, bounded, for room.
    package var alone = false
    /// Called once by a sink that can go on no longer (the command then finishes).
    package var onFatal: @Sendable () -> Void

    package init(
        standardOutput: @escaping () -> any SinkEncoder, messages: @escaping () -> any SinkEncoder,
        trackFile: @escaping (RecordOptions) -> (encoder: any SinkEncoder, format: OutputFormat),
        formatGiven: OutputFormat?, environment: [String: String], onFatal: @escaping @Sendable () -> Void
    ) {
        self.standardOutput = standardOutput
        self.messages = messages
        self.trackFile = trackFile
        self.formatGiven = formatGiven
        self.environment = environment
        self.onFatal = onFatal
    }
}
