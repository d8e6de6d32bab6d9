import LocTrack
import LocTrackRecordedLines

/// KML's elements, turned into points: every `<gx:Track>` (alone or in a `<gx:MultiTrack>`),
/// as Google Takeout's location history, Google My Tracks and other trackers write them.
/// A track's `<when>` times and `<gx:coord>` positions ("longitude latitude altitude") are
/// paired in order: Google writes all the times first, others alternate. A position beyond
/// the last time is skipped and counted (a trip needs times); a time beyond the last position,
/// or paired with an empty `<gx:coord/>` (OpenTracks marks where a segment starts and ends
/// so), is no position.
///
/// A `<LineString>` or a `<Point>` in a Placemark has no times of its own: no track. A file
/// with no gx:Track is said to be none.
final class KMLTrackWalk: XMLTrackWalk {
    /// A `<when>`, read.
    private enum When {
        case time(Timestamp)
        case notATime(String)
    }

    /// A `<gx:coord>` and its line.
    private struct Coord {
        var text: String
        var line: Int
    }

    private enum Field { case when, coord(line: Int) }

    private var reading = TrackFileReading(format: .kml)
    /// The depth of the `<gx:Track>` being read, if one is.
    private var trackDepth: Int?
    /// The times and positions not paired yet (one of the two is empty), with how many of
    /// each were paired.
    private var whens: [When] = []
    private var pairedWhens = 0
    private var coords: [Coord] = []
    private var pairedCoords = 0
    /// The field whose text was asked for.
    private var field: Field?
    private var tracks = 0
    private var lineStrings = 0

    func start(_ element: XMLElementStart) -> Bool {
        guard let trackDepth else {
            // KML 2.3 has the track as its own `<Track>` with `<coord>`s; Google's extension,
            // `<gx:Track>` with `<gx:coord>`s: the local names are the same.
            if element.name == "Track" {
                tracks += 1
                self.trackDepth = element.depth
            } else if element.name == "LineString" {
                lineStrings += 1
            }
            return false
        }
        guard element.depth == trackDepth + 1 else { return false }
        if element.name == "when" {
            field = .when
        } else if element.name == "coord" {
            field = .coord(line: element.line)
        }
        return field != nil
    }

    func end(depth: Int, text: [UInt8]?) {
        if let text, let field {
            self.field = nil
            switch field {
            case .when: whens.append(when(String(decoding: text, as: UTF8.self)))
            case .coord(let line): coords.append(Coord(text: String(decoding: text, as: UTF8.self), line: line))
            }
            pair()
        } else if depth == trackDepth {
            trackDepth = nil
            for _ in pairedCoords..<coords.count { reading.take(.untimed, at: "") }
            whens = []
            coords = []
            pairedWhens = 0
            pairedCoords = 0
        }
    }

    func finish(whole: Bool) -> TrackFileReading {
        guard whole, tracks == 0 else { return reading }
        return .notATrack(lineStrings > 0 ? "KML without a gx:Track (a LineString has no times)" : "KML without a gx:Track")
    }

    /// Pairs each time with the position of its place in the track, as both have come.
    private func pair() {
        while pairedWhens < whens.count, pairedCoords < coords.count {
            let coord = coords[pairedCoords]
            reading.take(outcome(of: whens[pairedWhens], coord), at: "line \(coord.line)")
            pairedWhens += 1
            pairedCoords += 1
        }
        // Once all of one kind are paired, its list starts over: of a track with every time
        // first, only the times are held.
        if pairedWhens == whens.count {
            whens.removeAll(keepingCapacity: true)
            pairedWhens = 0
        }
        if pairedCoords == coords.count {
            coords.removeAll(keepingCapacity: true)
            pairedCoords = 0
        }
    }

    private func when(_ text: String) -> When {
        RecordedTime.timestamp(text).map(When.time) ?? .notATime(text.trimmingBlanks())
    }

    private func outcome(of when: When, _ coord: Coord) -> RecordOutcome {
        // Blanks between the values; a comma as KML's `<coordinates>` has it is taken too.
        let values = coord.text.split { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "," }
        if values.isEmpty { return .notAPosition }
        guard values.count >= 2, let longitude = decimalNumber(values[0]), let latitude = decimalNumber(values[1]) else {
            return .unreadable("gx:coord \"\(coord.text.trimmingBlanks().prefix(40))\" is not a longitude and latitude")
        }
        switch when {
        case .time(let time):
            return .checked(time: time, latitude: latitude, longitude: longitude, speed: nil, horizontalError: nil, device: nil)
        case .notATime(let text) where text.isEmpty:
            return .untimed
        case .notATime(let text):
            return .unreadable("when \"\(text.prefix(40))\" is not an ISO 8601 time")
        }
    }
}
