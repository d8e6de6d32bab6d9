package import LocTrackDistance

/// What one track file gave: its points, in the file's order, and what could not be read.
///
/// A file is read as far as it goes: a bad record is skipped and counted, a file cut short
/// (a power cut, a kill) keeps every whole record before the cut. ``problem(named:)`` is the
/// one line `loctrack trips` prints for a file that was not wholly readable, ``notes(named:)``
/// what it says of a whole file that gave less than all its points.
package struct TrackFileReading: Sendable, Equatable {
    /// The kind of track file, or nil when it is none (``notATrack`` says what it is).
    package var format: TrackFileFormat?
    /// What a file that is no track file is, lower case: `KML without a gx:Track`; nil: not
    /// JSON lines, CSV, GPX, TCX or KML at all, or a track file.
    package var notATrack: String?
    package var points: [TrackPoint] = []
    /// Records that held no usable point (not JSON, a bad number, a time that is no time),
    /// counted; ``firstUnreadable`` says where and why for the first.
    package var unreadable = 0
    package var firstUnreadable: RecordProblem?
    /// Positions without a time (a GPX trkpt without `<time>`), skipped: no damage, as long
    /// as some point has a time.
    package var untimed = 0
    /// Where the file ends inside a record (a line without its end, a document without its
    /// closing tags), or nil when it ends whole. An empty reason: the location says it all.
    package var cutShort: RecordProblem?
    /// Where reading stopped before the end, nothing after it read: XML that is not
    /// well-formed before its last line (a parser does not read past that).
    package var stoppedAt: RecordProblem?

    package init(format: TrackFileFormat?) {
        self.format = format
    }

    /// The reading of a file that is no track file, saying what it is.
    static func notATrack(_ what: String) -> TrackFileReading {
        var reading = TrackFileReading(format: nil)
        reading.notATrack = what
        return reading
    }

    /// Whether everything in the file was read.
    package var isWhole: Bool {
        format != nil && unreadable == 0 && !hasNoTimes && cutShort == nil && stoppedAt == nil
    }

    /// Whether the file has positions and none with a time: nothing a trip can be made of.
    private var hasNoTimes: Bool { points.isEmpty && untimed > 0 }

    /// Counts a record that held no usable point.
    package mutating func skipUnreadable(_ problem: RecordProblem) {
        unreadable += 1
        if firstUnreadable == nil { firstUnreadable = problem }
    }

    /// One line (without `loctrack: ` and without a line end) saying what was wrong with the
    /// file `name` and what was read all the same; nil when the file was whole.
    package func problem(named name: String) -> String? {
        guard let format else {
            let what = notATrack ?? "not a track file (not JSON lines, CSV with time, lat and lon columns, GPX, TCX or KML)"
            return "\(name): \(what); nothing read"
        }
        var parts: [String] = []
        if let first = firstUnreadable {
            let records = format.recordName(unreadable)
            parts.append("\(first.location): \(first.reason)" + (unreadable > 1 ? " (\(unreadable) \(records) unreadable, skipped)" : ", skipped"))
        }
        if hasNoTimes {
            parts.append("no point has a time")
        }
        if let stop = stoppedAt {
            parts.append("\(stop.reason) at \(stop.location)")
        }
        if let cut = cutShort {
            parts.append("cut short at \(cut.location)" + (cut.reason.isEmpty ? "" : ": \(cut.reason)"))
        }
        guard !parts.isEmpty else { return nil }
        return "\(name): " + parts.joined(separator: "; ") + "; " + whatWasRead
    }

    /// How many points were read, and for a file that ends early, where they are.
    private var whatWasRead: String {
        let count = points.count
        guard count > 0 else { return "nothing read" }
        guard cutShort != nil || stoppedAt != nil else { return count == 1 ? "1 point read" : "\(count) points read" }
        let before = count == 1 ? "the point before it was read" : "the \(count) points before it were read"
        return stoppedAt == nil ? before : before + ", nothing after it"
    }

    /// What `loctrack trips` says of the file `name` beside its ``problem(named:)``, one line
    /// each (without `loctrack: `): what was left out of a file that is no worse for it.
    package func notes(named name: String) -> [String] {
        var notes: [String] = []
        if let format, untimed > 0, !hasNoTimes {
            notes.append("\(name): \(untimed) \(format.recordName(untimed)) without a time skipped")
        }
        let sharing = pointsSharingTime
        if sharing > 0 {
            notes.append("\(name): \(sharing) points share their time with another point; one point per time kept")
        }
        return notes
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

/// The kinds of track file `loctrack trips` reads.
package enum TrackFileFormat: String, Sendable, Equatable {
    /// One JSON object per line: loctrack's TPV lines (`--format json`, also gpsd's own as
    /// `gpspipe -w` writes them), GeoJSON Features (`--format geojson`), OwnTracks
    /// locations (`--format owntracks`).
    case jsonLines = "JSON lines"
    /// A header line with `time`, `lat` and `lon` columns, then one row per fix (`--format csv`).
    case csv = "CSV"
    /// GPX, loctrack's or another program's.
    case gpx = "GPX"
    /// Garmin's Training Center Database: Garmin Connect's and Strava's activities.
    case tcx = "TCX"
    /// KML with a `gx:Track`: Google Takeout's location history, Google My Tracks.
    case kml = "KML"

    /// What a record is called in messages: `3 lines`, `2 rows`, `5 track points`.
    func recordName(_ count: Int) -> String {
        let name: String = switch self {
        case .jsonLines: "line"
        case .csv: "row"
        case .gpx: "track point"
        case .tcx: "Trackpoint"
        case .kml: "gx:Track point"
        }
        return count == 1 ? name : name + "s"
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
