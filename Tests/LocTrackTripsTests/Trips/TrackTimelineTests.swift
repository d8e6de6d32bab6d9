import LocTrack
import LocTrackDistance
import LocTrackTrackFiles
import Testing

@Suite("Merging the files' points", .timeLimit(.minutes(1)))
struct TrackTimelineTests {
    /// The timeline keeps what the trips use (no altitudes, no fix kind): such points come back whole.
    static let points = GeneratedDrive().points.map { point in
        TrackPoint(
            time: point.time, latitude: point.latitude, longitude: point.longitude, speed: point.speed,
            horizontalError: point.horizontalError, device: point.device)
    }

    static func merged(_ files: [[TrackPoint]]) -> [TrackPoint] {
        var timeline = TrackTimeline()
        for file in files { timeline.add(file) }
        return Array(timeline.merged())
    }

    @Test("given a day's points split into three files given in reverse order when merged then they are the day in time order")
    func outOfOrderFiles() {
        let thirds = [Array(Self.points[..<500]), Array(Self.points[500..<1000]), Array(Self.points[1000...])]
        #expect(Self.merged(thirds.reversed()) == Self.points)
    }

    @Test("given two files that overlap by 200 points when merged then each time is there once")
    func overlappingFiles() {
        let merged = Self.merged([Array(Self.points[..<900]), Array(Self.points[700...])])
        #expect(merged == Self.points)
    }

    @Test("given points out of order inside one file (a receiver's time going back) when merged then they are in time order")
    func outOfOrderPoints() {
        var shuffled = Array(Self.points.prefix(50))
        shuffled.swapAt(3, 40)
        shuffled.swapAt(10, 11)
        #expect(Self.merged([shuffled]) == Array(Self.points.prefix(50)))
    }

    @Test("given the same times from a GPX (no speed, no device) and a JSON file when merged in either order then the JSON's points are kept")
    func moreDetailWins() {
        let json = Array(Self.points.prefix(20))
        let gpx = json.map { TrackPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude, horizontalError: $0.horizontalError) }
        #expect(Self.merged([gpx, json]) == json)
        #expect(Self.merged([json, gpx]) == json)
    }

    @Test("given two points of one time that say as much when merged then the first given is kept (stable)")
    func firstOfEqualsWins() {
        let time = GeneratedDrive.start
        let first = TrackPoint(time: time, latitude: 1, longitude: 1, speed: 1, device: "a")
        let second = TrackPoint(time: time, latitude: 2, longitude: 2, speed: 2, device: "b")
        #expect(Self.merged([[first], [second]]) == [first])
        #expect(Self.merged([[second], [first]]) == [second])
        #expect(Self.merged([[first, second]]) == [first])
    }

    @Test("given no files when merged then there are no points")
    func nothing() {
        #expect(Self.merged([]).isEmpty)
        #expect(Self.merged([[], []]).isEmpty)
    }
}
