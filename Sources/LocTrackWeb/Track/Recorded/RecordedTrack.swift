import LocTrack
import LocTrackDistance
import LocTrackFormats
import LocTrackRecordedLines
import LocTrackSystem

/// The fixes `stream --output PATTERN` recorded since the start of the UTC day
/// (`serve --track PATTERN`), so that the page shows the day so far, not only what came
/// since `serve` started; and today's distance over those recorded since local midnight.
///
/// Reads the files the pattern names for each moment of the day up to now (one file for
/// `tracks/%F.json`, up to 24 for `%F-%H.json`; from local midnight when that is earlier),
/// JSON, GeoJSON or OwnTracks lines, with the reader `loctrack trips` reads them with
/// (``RecordedLineReader``), so that the page and the trips count the same points; other
/// lines (SKY, no fix, a torn last line) are skipped and counted. The track's fixes are put
/// in time order, one per time, and at most the latest ``TrackStore/defaultCapacity`` are
/// kept. The odometer takes each fix since local midnight as it is read, so that a day at
/// 10 Hz costs no copy of its own.
public struct RecordedTrack: Sendable {
    /// The files that were there and read, in the order read.
    public let files: [String]
    /// Lines that were not fixes: another record (SKY, a TPV without a fix), unreadable, or torn.
    public let skippedLines: Int
    package let points: [PackedTrackPoint]
    /// The odometer and trips after the fixes recorded since local midnight.
    package let distance: LiveDistance

    /// The number of fixes loaded.
    public var fixCount: Int { points.count }

    package init(files: [String] = [], skippedLines: Int = 0, points: [PackedTrackPoint], distance: LiveDistance = LiveDistance()) {
        self.files = files
        self.skippedLines = skippedLines
        self.points = points
        self.distance = distance
    }

    /// The day so far of `pattern` (`--track`'s value), by the wall clock and the local zone.
    /// - Throws: 64 for a pattern that is not one `--output` takes, or that names GPX, CSV
    ///   or text files (serve reads back only JSON lines: TPV, GeoJSON or OwnTracks); 74 for
    ///   a file that is there but cannot be read.
    public static func load(pattern: String) throws(LiveSetupError) -> RecordedTrack {
        try load(pattern: pattern, now: wallClockSeconds(), utcOffset: LiveClock.system.utcOffsetSeconds)
    }

    /// The recorded fixes of the UTC day of `now` (seconds since 1970), up to `now`, and
    /// the odometer over those of its local day (`utcOffset`: the zone's offset at a moment).
    package static func load(
        pattern text: String, now: Int64, utcOffset: @escaping (Int64) -> Int64 = { _ in 0 },
        capacity: Int = TrackStore.defaultCapacity
    ) throws(LiveSetupError) -> RecordedTrack {
        let pattern: TrackPathPattern
        do {
            pattern = try TrackPathPattern(text)
        } catch {
            throw LiveSetupError("invalid --track '\(text)': expected \(error.expected)", exitCode: 64)
        }
        if let format = OutputFormat.named(byExtensionOf: text), format != .json, format != .geojson {
            throw LiveSetupError(
                "--track '\(text)' names \(format.rawValue) files; serve reads back only JSON, GeoJSON or OwnTracks lines "
                    + "(record them with another --output, e.g. 'tracks/%F.json')",
                exitCode: 64)
        }
        let dayStart = now - ((now % 86_400) + 86_400) % 86_400
        let localDayStart = LocalDay(containing: now, utcOffset: utcOffset).start
        var reading = Reading(trackSince: dayStart * 1000, travelSince: localDayStart, utcOffset: utcOffset)
        var files: [String] = []
        var skipped = 0
        for name in fileNames(pattern, from: min(dayStart, localDayStart), through: now) {
            guard let read = try readFile(name, into: &reading) else { continue }
            files.append(name)
            skipped += read
            // Days at 10 Hz are more than the track keeps: drop the oldest as they come.
            if reading.points.count > 2 * capacity { reading.points.removeFirst(reading.points.count - capacity) }
        }
        return RecordedTrack(
            files: files, skippedLines: skipped, points: Array(orderedByTime(reading.points).suffix(capacity)),
            distance: reading.distance)
    }

    /// What the files read so far gave.
    private struct Reading {
        /// The track's fixes from this time on (milliseconds since 1970): the UTC day's.
        let trackSince: Int64
        /// The odometer's from this time on (seconds since 1970): local midnight's.
        let travelSince: Int64
        let utcOffset: (Int64) -> Int64
        var points: [PackedTrackPoint] = []
        var distance = LiveDistance()

        mutating func take(_ point: TrackPoint) {
            let packed = PackedTrackPoint(point)
            if packed.time >= trackSince { points.append(packed) }
            if point.time.seconds >= travelSince { distance.takeRecorded(point, utcOffset: utcOffset) }
        }
    }

    /// The names the pattern gives the moments from `start` through `end`, each once, in
    /// time order: stepped by the pattern's finest field (a second, a minute, else an hour).
    static func fileNames(_ pattern: TrackPathPattern, from start: Int64, through end: Int64) -> [String] {
        guard pattern.rotates else { return [pattern.fileName(utcSeconds: end)] }
        var step: Int64 = 3600
        var characters = pattern.text.makeIterator()
        while let character = characters.next() {
            guard character == "%", let field = characters.next() else { continue }
            if "STs".contains(field) { step = 1 } else if field == "M" { step = min(step, 60) }
        }
        var names: [String] = []
        var seen = Set<String>()
        var time = start
        while true {
            let name = pattern.fileName(utcSeconds: min(time, end))
            if seen.insert(name).inserted { names.append(name) }
            if time >= end { return names }
            time += step
        }
    }

    /// Reads the fixes of the file `path` into `reading`; returns the number of lines
    /// skipped, or nil when there is no such file.
    private static func readFile(_ path: String, into reading: inout Reading) throws(LiveSetupError) -> Int? {
        let file: FileDescriptor
        do throws(Errno) {
            file = try openFile(path, .readOnly)
        } catch where error == .noSuchFile {
            return nil
        } catch {
            throw LiveSetupError("cannot read --track file \(path): \(error)", exitCode: 74)
        }
        let descriptor = file.rawValue
        var lines = LineSplitter()
        var records = RecordedLineReader()
        var offset: Int64 = 0
        var skipped = 0
        while true {
            let chunk: [UInt8]
            do {
                chunk = try readBytes(descriptor, at: offset, count: 1 << 20)
            } catch {
                throw LiveSetupError("cannot read --track file \(path): \(error)", exitCode: 74)
            }
            guard !chunk.isEmpty else { break }
            offset += Int64(chunk.count)
            lines.take(chunk) { line in
                line.withUnsafeBytes { bytes in
                    guard !RecordedLineReader.isBlank(bytes) else { return }
                    if case .success(.point(let point)) = records.outcome(of: bytes) {
                        reading.take(point)
                    } else {
                        skipped += 1
                    }
                }
            }
        }
        // A last line without its newline is being written, or was torn: not a fix yet.
        if lines.hasRemainder { skipped += 1 }
        return skipped
    }

    /// Sorted by time (stable for equal times: the first read stays) with one point per
    /// time. Recordings are in order already, so usually this only checks.
    private static func orderedByTime(_ points: [PackedTrackPoint]) -> [PackedTrackPoint] {
        var ordered = points
        if !zip(points, points.dropFirst()).allSatisfy({ $0.time <= $1.time }) {
            ordered = points.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        var unique: [PackedTrackPoint] = []
        unique.reserveCapacity(ordered.count)
        for point in ordered where unique.last?.time != point.time { unique.append(point) }
        return unique
    }
}

/// Whole lines out of chunks of a file: what follows the last newline waits for the next chunk.
private struct LineSplitter {
    private var remainder: [UInt8] = []

    var hasRemainder: Bool { !remainder.isEmpty }

    mutating func take(_ chunk: [UInt8], _ body: (ArraySlice<UInt8>) -> Void) {
        var start = 0
        var bytes = chunk
        if !remainder.isEmpty {
            bytes = remainder + chunk
            remainder = []
        }
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            var end = newline
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            body(bytes[start..<end])
            start = newline + 1
        }
        remainder = Array(bytes[start...])
    }
}
