import LocTrack
import LocTrackFormats
import LocTrackRecordedLines

/// GPX's elements, turned into points: every `<trkpt>` of every track, loctrack's (`stream
/// --format gpx`, `--output x.gpx`) and other programs' (GPSLogger, OsmAnd, Garmin…). Route
/// points (`<rtept>`) and waypoints (`<wpt>`) are no track: left out, and counted to say so
/// of a file that has nothing else.
///
/// A point takes `lat` and `lon` from its attributes, its time from its `<time>`, its speed
/// (m/s) from a `<speed>` (GPX 1.0 has one in the point; GPX 1.1 programs put one in
/// `<extensions>`: OsmAnd's `osmand:speed`, Garmin's `gpxtpx:speed`), its error estimate
/// from loctrack's own `<loctrack:eph>` extension (other programs' `<hdop>` is a dilution,
/// not metres: not used). A point with `<fix>none</fix>` is no position; one without a
/// `<time>` is skipped and counted (a trip needs times).
final class GPXPointWalk: XMLTrackWalk {
    /// The point being read: its depth, line and what it said so far.
    private struct PointInProgress {
        var depth: Int
        var line: Int
        var latitude: String?
        var longitude: String?
        var time: String?
        var speed: String?
        var horizontalError: String?
        var fix: String?
    }

    private enum Field { case time, speed, horizontalError, fix }

    private var reading = TrackFileReading(format: .gpx)
    private var point: PointInProgress?
    /// The field whose text was asked for.
    private var field: Field?
    private var trackPoints = 0
    private var routes = 0
    private var waypoints = 0
    /// The points' times, read with the last date's midnight kept (a track's points share their date).
    private var times = RecordedTime.Reader()

    func start(_ element: XMLElementStart) -> Bool {
        guard let current = point else {
            if element.name == "trkpt" {
                trackPoints += 1
                point = PointInProgress(
                    depth: element.depth, line: element.line, latitude: element.attribute("lat"), longitude: element.attribute("lon"))
            } else if element.depth == 2, element.name == "rte" {
                routes += 1
            } else if element.depth == 2, element.name == "wpt" {
                waypoints += 1
            }
            return false
        }
        field = field(element, relativeDepth: element.depth - current.depth, of: current)
        return field != nil
    }

    func end(depth: Int, text: [UInt8]?) {
        if let text, let field {
            store(String(decoding: text, as: UTF8.self), as: field)
            self.field = nil
        } else if let finished = point, finished.depth == depth {
            point = nil
            reading.take(outcome(of: finished), at: "line \(finished.line)")
        }
    }

    func finish(whole: Bool) -> TrackFileReading {
        guard whole, trackPoints == 0, routes + waypoints > 0 else { return reading }
        let beside = [counted(routes, "route"), counted(waypoints, "waypoint")].compactMap { $0 }.joined(separator: ", ")
        return .notATrack("GPX with no track points (\(beside))")
    }

    private func counted(_ count: Int, _ name: String) -> String? {
        count == 0 ? nil : count == 1 ? "1 \(name)" : "\(count) \(name)s"
    }

    /// Which field a child element of the point gives, `relativeDepth` below it: `<time>` and
    /// `<fix>` as the point's own children, a speed anywhere in it (extensions nest), an
    /// error estimate only as loctrack's. The first of each counts.
    private func field(_ element: XMLElementStart, relativeDepth: Int, of current: PointInProgress) -> Field? {
        if relativeDepth == 1, current.time == nil, element.name == "time" { return .time }
        if relativeDepth == 1, current.fix == nil, element.name == "fix" { return .fix }
        if current.speed == nil, element.name == "speed" { return .speed }
        if current.horizontalError == nil, element.name == "eph", let namespace = element.namespace,
           namespace == GPXEncoder.extensionNamespace {
            return .horizontalError
        }
        return nil
    }

    private func store(_ text: String, as field: Field) {
        switch field {
        case .time: point?.time = text
        case .speed: point?.speed = text
        case .horizontalError: point?.horizontalError = text
        case .fix: point?.fix = text
        }
    }

    private func outcome(of point: PointInProgress) -> RecordOutcome {
        if point.fix?.trimmingBlanks() == "none" { return .notAPosition }
        let text = XMLPointText(
            latitude: point.latitude, longitude: point.longitude, time: point.time, speed: point.speed,
            horizontalError: point.horizontalError)
        return text.outcome(Self.names, times: &times)
    }

    private static let names = XMLPointText.Names(point: "a trkpt", latitude: "lat", longitude: "lon", time: "time")
}
