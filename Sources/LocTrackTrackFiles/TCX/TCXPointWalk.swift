import LocTrackRecordedLines

/// TCX's elements, turned into points: Garmin's Training Center Database v2, as Garmin
/// Connect and Strava export an activity. Every `<Trackpoint>` of an `<Activity>` (in its
/// `Lap`s' `Track`s) takes its time from `<Time>`, its position from `<Position>`'s
/// `<LatitudeDegrees>` and `<LongitudeDegrees>`, and its speed (m/s) from the activity
/// extension's `<Speed>` (`ns3:TPX`) when it has one. A `<Course>` is a route to follow, its
/// times planned, not recorded: left out, and counted to say so of a file that has nothing else.
///
/// A Trackpoint without a `<Position>` is no position: Garmin writes them during a pause, and
/// for the heart rate or cadence of an activity indoors. One without a `<Time>` is skipped
/// and counted (a trip needs times).
final class TCXPointWalk: XMLTrackWalk {
    /// The Trackpoint being read: its depth, line and what it said so far.
    private struct PointInProgress {
        var depth: Int
        var line: Int
        var hasPosition = false
        var time: String?
        var latitude: String?
        var longitude: String?
        var speed: String?
    }

    private enum Field { case time, latitude, longitude, speed }

    private var reading = TrackFileReading(format: .tcx)
    /// The depth of the `<Activity>` being read, if one is.
    private var activityDepth: Int?
    private var point: PointInProgress?
    /// The field whose text was asked for.
    private var field: Field?
    private var trackpoints = 0
    private var courses = 0
    /// The points' times, read with the last date's midnight kept (a track's points share their date).
    private var times = RecordedTime.Reader()

    func start(_ element: XMLElementStart) -> Bool {
        guard let current = point else {
            if activityDepth == nil {
                if element.name == "Activity" {
                    activityDepth = element.depth
                } else if element.name == "Course" {
                    courses += 1
                }
            } else if element.name == "Trackpoint" {
                trackpoints += 1
                point = PointInProgress(depth: element.depth, line: element.line)
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
        } else if depth == activityDepth {
            activityDepth = nil
        }
    }

    func finish(whole: Bool) -> TrackFileReading {
        guard whole, trackpoints == 0, courses > 0 else { return reading }
        return .notATrack("TCX with no activity, only \(courses == 1 ? "a course" : "\(courses) courses") (a route, not a recording)")
    }

    /// Which field an element in the Trackpoint gives, `relativeDepth` below it: `<Time>` as its
    /// own child, the degrees as children of its `<Position>`, a speed anywhere in it (in
    /// `<Extensions>`). The first of each counts.
    private func field(_ element: XMLElementStart, relativeDepth: Int, of current: PointInProgress) -> Field? {
        if relativeDepth == 1, element.name == "Position" {
            point?.hasPosition = true
            return nil
        }
        if relativeDepth == 1, current.time == nil, element.name == "Time" { return .time }
        if relativeDepth == 2, current.latitude == nil, element.name == "LatitudeDegrees" { return .latitude }
        if relativeDepth == 2, current.longitude == nil, element.name == "LongitudeDegrees" { return .longitude }
        if relativeDepth > 1, current.speed == nil, element.name == "Speed" { return .speed }
        return nil
    }

    private func store(_ text: String, as field: Field) {
        switch field {
        case .time: point?.time = text
        case .latitude: point?.latitude = text
        case .longitude: point?.longitude = text
        case .speed: point?.speed = text
        }
    }

    private func outcome(of point: PointInProgress) -> RecordOutcome {
        guard point.hasPosition else { return .notAPosition }
        let text = XMLPointText(latitude: point.latitude, longitude: point.longitude, time: point.time, speed: point.speed)
        return text.outcome(Self.names, times: &times)
    }

    private static let names = XMLPointText.Names(
        point: "a Position", latitude: "LatitudeDegrees", longitude: "LongitudeDegrees", time: "Time")
}
