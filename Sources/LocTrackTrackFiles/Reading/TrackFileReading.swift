package import LocTrackDistance

/// What one track file gave: its points, in the file's order, and what could not be read.
///
/// A file is read as far as it goes: a bad record is skipped and counted, a file cut short
/// (a power cut, a kill) keeps every whole record before the cut. ``problem(named:)`` is the
/// one line `loctrack trips` prints for a file that was not wholly readable.
package struct TrackFileReading: Sendable, Equatable {
    package var format: TrackFileFormat?
    package var points: [TrackPoint] = []
    /// Records that held no usable point (not JSON, a bad number, a time that is no time),
    /// counted; ``firstUnreadable`` says where and why for the first.
    package var unreadable = 0
    package var firstUnreadable: RecordProblem?
    /// Where the file ends inside a record (a line without its end, a document without its
    /// closing tags), or nil when it ends whole.
    package var cutShort: RecordProblem?
    /// Where reading stopped before the end, nothing after it read: XML that is not
    /// well-formed before its last line (a parser does not read past that).
    package var stoppedAt: RecordProblem?

    package init(format: TrackFileFormat?) {
        self.format = format
    }

    /// Whether everything in the file was read.
    package var isWhole: Bool { format != nil && unreadable == 0 && cutShort == nil && stoppedAt == nil }

    /// Counts a record that held no usable point.
    package mutating func skipUnreadable(_ problem: RecordProblem) {
        unreadable += 1
        if firstUnreadable == nil { firstUnreadable = problem }
    }

    /// One line (without `loctrack: ` and without a line end) saying what was wrong with the
    /// file `name` and what was read all the same; nil when the file was whole.
    package func problem(named name: String) -> String? {
        guard let format else {
            return "\(name): not a track file (not JSON lines, CSV with time, lat and lon columns, or GPX); nothing read"
        }
        var parts: [String] = []
        if let first = firstUnreadable {
            let records = format.recordName(unreadable)
            parts.append("\(first.location): \(first.reason)" + (unreadable > 1 ? " (\(unreadable) \(records) unreadable, skipped)" : ", skipped"))
        }
        if let stop = stoppedAt {
            parts.append("\(stop.location): \(stop.reason); nothing after it read")
        }
        if let cut = cutShort {
            parts.append("cut short at \(cut.location): \(cut.reason)")
        }
        guard !parts.isEmpty else { return nil }
        let kept = points.count == 1 ? "1 point" : "\(points.count) points"
        return "\(name): " + parts.joined(separator: "; ") + "; \(kept) read"
    }
}

/// Where a record of a file could not be read, and why.
package struct RecordProblem: Sendable, Equatable {
    /// `line 12`, `line 12, column 5`.
    package var location: String
    /// Lower case, no full stop: `not JSON (invalid JSON at byte 3: …)`.
    package var reason: String

    package init(_ location: String, _ reason: String) {
        self.location = location
        self.reason = reason
    }

    package static func line(_ number: Int, _ reason: String) -> RecordProblem {
        RecordProblem("line \(number)", reason)
    }
}

/// The kinds of track file `loctrack trips` reads, told apart by their first bytes.
package enum TrackFileFormat: String, Sendable, Equatable {
    /// One JSON object per line: loctrack's TPV lines (`--format json`, also gpsd's own as
    /// `gpspipe -w` writes them), GeoJSON Features (`--format geojson`), OwnTracks
    /// locations (`--format owntracks`).
    case jsonLines = "JSON lines"
    /// A header line with `time`, `lat` and `lon` columns, then one row per fix (`--format csv`).
    case csv = "CSV"
    /// An XML document: GPX, loctrack's or another program's.
    case gpx = "GPX"

    /// What a record is called in messages: `3 lines`, `2 rows`, `5 track points`.
    func recordName(_ count: Int) -> String {
        switch self {
        case .jsonLines: count == 1 ? "line" : "lines"
        case .csv: count == 1 ? "row" : "rows"
        case .gpx: count == 1 ? "track point" : "track points"
        }
    }

    /// The format of a file that starts with `bytes`, or nil when it is none of these.
    /// Whitespace and a UTF-8 byte order mark before the first character are skipped. A file
    /// with nothing else (a recording that has no fix yet), or only zero bytes after it (a
    /// power cut), is taken as JSON lines: no lines, or the zeros reported as a cut.
    package static func detect(_ bytes: some Collection<UInt8>) -> TrackFileFormat? {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        guard let first = rest.firstIndex(where: { !isWhitespace($0) }), rest[first...].contains(where: { $0 != 0 }) else {
            return .jsonLines
        }
        switch rest[first] {
        case UInt8(ascii: "<"): return .gpx
        case UInt8(ascii: "{"): return .jsonLines
        default:
            let header = rest[first...].prefix { $0 != 0x0A && $0 != 0x0D }
            return CSVHeader(String(decoding: header, as: UTF8.self)) != nil ? .csv : nil
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
