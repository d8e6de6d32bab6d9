package import LocTrackFormats
/// The track file each record goes to: ``TrackPathPattern``'s name for the record's UTC
/// second, formatted once per second of time.
///
/// A flood of fixes (a replayed log, a 10 Hz receiver) has many records in one second;
/// `strftime` and a new `String` for each would be the writer's most expensive step.
/// Pure: the formatter is a function of the time only, so tests may pass their own.
package struct TrackFileNames {
    private let format: (Int64) -> String
    private var cache: (seconds: Int64, name: String)?

    package init(pattern: TrackPathPattern) {
        self.init { pattern.fileName(utcSeconds: $0) }
    }

    /// - Parameter format: the file name for a UTC second.
    package init(format: @escaping (Int64) -> String) {
        self.format = format
    }

    /// The file for a record at `seconds` since 1970 (UTC).
    package mutating func name(for seconds: Int64) -> String {
        if let cache, cache.seconds == seconds { return cache.name }
        let name = format(seconds)
        cache = (seconds, name)
        return name
    }
}
