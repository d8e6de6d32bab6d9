import LocTrack
import LocTrackDistance
import LocTrackTrackFiles
import Testing

/// Points a whole file holds that give no point of the track: positions without a time, and
/// points that share their time with another (the timeline keeps one per time). Each is said
/// once per file, as a note: the file is as its program wrote it.
@Suite("Points without a time, points of one time", .timeLimit(.minutes(1)))
struct LeftOutPointsTests {
    static let start = "2026-11-23T09:00:0"

    static func gpx(_ points: [(lat: Double, time: String?)]) -> [UInt8] {
        let body = points.map { point in
            "<trkpt lat=\"\(point.lat)\" lon=\"13.4\">" + (point.time.map { "<time>\($0)</time>" } ?? "<ele>34</ele>") + "</trkpt>\n"
        }
        return Array(("<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n" + body.joined() + "</trkseg></trk></gpx>\n").utf8)
    }

    @Test("given GPX with 2 of 5 trkpts without a <time> when read then the 3 are read, the file is whole and a note counts the 2")
    func someWithoutTime() {
        let reading = TrackFileReader.read(Self.gpx([
            (52.50, "\(Self.start)0Z"), (52.51, nil), (52.52, "\(Self.start)2Z"), (52.53, " "), (52.54, "\(Self.start)4Z"),
        ]))
        #expect(reading.points.map(\.latitude) == [52.50, 52.52, 52.54])
        #expect(reading.isWhole && reading.untimed == 2)
        #expect(reading.problem(named: "a.gpx") == nil)
        #expect(reading.notes(named: "a.gpx") == ["a.gpx: 2 track points without a time skipped"])
    }

    @Test("given GPX where no trkpt has a <time> (a route saved as a track) when read then nothing is read and that is the file's problem")
    func noneWithTime() {
        let reading = TrackFileReader.read(Self.gpx([(52.50, nil), (52.51, nil), (52.52, nil)]))
        #expect(reading.format == .gpx && !reading.isWhole)
        #expect(reading.problem(named: "a.gpx") == "a.gpx: no point has a time; nothing read")
        #expect(reading.notes(named: "a.gpx").isEmpty)
    }

    @Test("given a logger that wrote 4 points with one time between others when read then all are read and a note says 4 share their time")
    func sharedTime() {
        let reading = TrackFileReader.read(Self.gpx([
            (52.50, "\(Self.start)0Z"), (52.51, "\(Self.start)1Z"), (52.52, "\(Self.start)1Z"), (52.53, "\(Self.start)1Z"),
            (52.54, "\(Self.start)1Z"), (52.55, "\(Self.start)2Z"),
        ]))
        #expect(reading.points.count == 6 && reading.isWhole)
        #expect(reading.notes(named: "a.gpx") == ["a.gpx: 4 points share their time with another point; one point per time kept"])
    }

    @Test("given points of one time out of order in the file (a receiver's clock going back) when read then they are counted all the same")
    func sharedTimeApart() {
        let reading = TrackFileReader.read(Self.gpx([
            (52.50, "\(Self.start)0Z"), (52.51, "\(Self.start)1Z"), (52.52, "\(Self.start)2Z"), (52.53, "\(Self.start)1Z"),
        ]))
        #expect(reading.notes(named: "a.gpx") == ["a.gpx: 2 points share their time with another point; one point per time kept"])
    }

    @Test("given a point repeated whole (the same time and place) when read then it is no note: nothing is lost")
    func repeatedPoint() {
        let reading = TrackFileReader.read(Self.gpx([(52.50, "\(Self.start)0Z"), (52.50, "\(Self.start)0Z"), (52.51, "\(Self.start)1Z")]))
        #expect(reading.points.count == 3)
        #expect(reading.notes(named: "a.gpx").isEmpty)
    }
}
