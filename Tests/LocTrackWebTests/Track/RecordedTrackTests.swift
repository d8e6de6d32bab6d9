import LocTrack
import LocTrackFormats
@testable import LocTrackWeb
import Testing

/// `--track PATTERN`: the files `stream --output PATTERN` writes, read back for the day so far.
@Suite("Recorded track: --track")
struct RecordedTrackTests {
    /// 2026-11-24T10:00:00Z: "now" in these tests.
    static let now = TestFixes.start + 7_200

    static func jsonLine(_ second: Int64, eph: String = ",\"eph\":4.200") -> String {
        "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":3,\"time\":\"\(TestFixes.time(second))\",\"ept\":0.005,"
            + "\"lat\":47.376621000,\"lon\":8.541733000,\"altHAE\":458.0000,\"altMSL\":410.5000\(eph),\"stationary\":false}\n"
    }

    static func geoJSONLine(_ second: Int64) -> String {
        let properties = jsonLine(second).dropLast()
        return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.541733000,47.376621000,458.0000]},"
            + "\"properties\":\(properties)}\n"
    }

    @Test("given today's JSON lines file when loaded then each fix is a point with its values")
    func jsonLines() throws {
        let directory = try TemporaryDirectory()
        try directory.write((1...3).map { Self.jsonLine($0) }.joined(), to: "tracks/2026-11-24.json")
        let track = try RecordedTrack.load(pattern: directory.path + "/tracks/%F.json", now: Self.now)
        #expect(track.files == [directory.path + "/tracks/2026-11-24.json"])
        #expect(track.points.map(\.time) == (1...3).map { (TestFixes.start + $0) * 1000 })
        #expect(track.points.first == TrackPoint(
            time: (TestFixes.start + 1) * 1000, latitude: 47.376621, longitude: 8.541733, horizontalError: 4.2,
            altitudeMSL: 410.5, altitudeHAE: 458))
        #expect(track.skippedLines == 0)
    }

    @Test("given GeoJSON lines when loaded then the fixes come from their properties")
    func geoJSONLines() throws {
        let directory = try TemporaryDirectory()
        try directory.write(Self.geoJSONLine(1) + Self.geoJSONLine(2), to: "day.geojson")
        let track = try RecordedTrack.load(pattern: directory.path + "/day.geojson", now: Self.now)
        #expect(track.points.map(\.time) == [(TestFixes.start + 1) * 1000, (TestFixes.start + 2) * 1000])
        #expect(track.points.first?.latitude == 47.376621)
    }

    @Test("given a torn last line, an OwnTracks line, a fix without eph, and yesterday's fix when loaded then the fixes of today are kept and 2 lines skipped")
    func skipsWhatIsNoFix() throws {
        let directory = try TemporaryDirectory()
        let owntracks = "{\"_type\":\"location\",\"lat\":47.1,\"lon\":8.1,\"tst\":1795507201}\n"
        let yesterday = Self.jsonLine(-86_400)
        let torn = String(Self.jsonLine(3).dropLast(20))
        try directory.write(yesterday + Self.jsonLine(1) + owntracks + Self.jsonLine(2, eph: "") + "\n" + torn, to: "all.json")
        let track = try RecordedTrack.load(pattern: directory.path + "/all.json", now: Self.now)
        #expect(track.points.map(\.time) == [(TestFixes.start + 1) * 1000, (TestFixes.start + 2) * 1000])
        #expect(track.points.last?.horizontalError == nil)
        #expect(track.skippedLines == 2)
    }

    @Test("given hourly files out of order and repeating a time when loaded then the fixes are in time order, one per time")
    func hourlyFiles() throws {
        let directory = try TemporaryDirectory()
        try directory.write(Self.jsonLine(5) + Self.jsonLine(1), to: "2026-11-24-08.json")
        try directory.write(Self.jsonLine(3_600) + Self.jsonLine(5), to: "2026-11-24-09.json")
        let track = try RecordedTrack.load(pattern: directory.path + "/%F-%H.json", now: Self.now)
        #expect(track.files.count == 2)
        #expect(track.points.map { $0.time / 1000 - TestFixes.start } == [1, 5, 3_600])
    }

    /// A recorded fix `second` s after the start, driving east at 10 m/s (`stream --format json` with a speed).
    static func drivingLine(_ second: Int64, east: Double) -> String {
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"\(TestFixes.time(second))\",\"lat\":47.000000000,"
            + "\"lon\":\(8 + east / 75_834.8),\"speed\":10.000,\"eph\":5.000,\"stationary\":false}\n"
    }

    @Test("given a minute's drive before and one after 00:00 UTC when loaded in UTC+2 and in UTC-5 then the track holds the UTC day's and today's distance what followed local midnight")
    func distanceSinceLocalMidnight() throws {
        let directory = try TemporaryDirectory()
        let lateYesterday = (0..<60).map { Self.drivingLine(-9 * 3600 + $0, east: Double($0) * 10) }  // 23:00Z the day before
        // 01:00Z, on from where the first ended (a gap's chord counts when its speed is plausible).
        let early = (0..<60).map { Self.drivingLine(-7 * 3600 + $0, east: 600 + Double($0) * 10) }
        try directory.write((lateYesterday + early).joined(), to: "all.json")
        // UTC+2: local midnight is 22:00Z the day before, both drives are today's.
        let east = try RecordedTrack.load(pattern: directory.path + "/all.json", now: Self.now, utcOffset: { _ in 7_200 })
        #expect(east.points.count == 60, "the track is the UTC day's")
        #expect(east.distance.day?.date == "2026-11-24")
        #expect(east.distance.today >= 1_170 && east.distance.today <= 1_210, "\(east.distance.today)")
        #expect(east.distance.latest == Timestamp(seconds: TestFixes.start - 7 * 3600 + 59))
        // UTC-5: local midnight is 05:00Z, both drives were yesterday's.
        let west = try RecordedTrack.load(pattern: directory.path + "/all.json", now: Self.now, utcOffset: { _ in -18_000 })
        #expect(west.points.count == 60)
        #expect(west.distance.today == 0 && west.distance.day == nil)
    }

    @Test("given more fixes than the track keeps when loaded then the latest are kept")
    func capacity() throws {
        let directory = try TemporaryDirectory()
        try directory.write((1...5).map { Self.jsonLine($0) }.joined(), to: "t.json")
        let track = try RecordedTrack.load(pattern: directory.path + "/t.json", now: Self.now, capacity: 2)
        #expect(track.points.map { $0.time / 1000 - TestFixes.start } == [4, 5])
    }

    @Test("given no file for today yet when loaded then the track is empty, not an error")
    func noFileYet() throws {
        let directory = try TemporaryDirectory()
        let track = try RecordedTrack.load(pattern: directory.path + "/%F.json", now: Self.now)
        #expect(track.files.isEmpty && track.points.isEmpty)
    }

    @Test("given a pattern naming GPX, CSV or text files when loaded then it is refused with exit 64", arguments: ["t/%F.gpx", "t/%F.CSV", "t/%F.txt"])
    func refusedFormats(pattern: String) {
        #expect(throws: LiveSetupError.self) { try RecordedTrack.load(pattern: pattern, now: Self.now) }
        #expect((try? RecordedTrack.load(pattern: pattern, now: Self.now)) == nil)
        do {
            _ = try RecordedTrack.load(pattern: pattern, now: Self.now)
        } catch {
            #expect(error.exitCode == 64)
            #expect(error.description.hasPrefix("--track '\(pattern)' names "))
        }
    }

    @Test("given a pattern --output refuses when loaded then the same reason, exit 64")
    func invalidPattern() {
        #expect(throws: LiveSetupError("invalid --track 'x/%a.json': expected a file name whose % fields are among "
            + "%% %C %F %G %H %M %S %T %U %V %W %Y %d %e %g %j %m %s %u %w %y", exitCode: 64)) {
            try RecordedTrack.load(pattern: "x/%a.json", now: Self.now)
        }
    }

    @Test("given a file that cannot be read when loaded then exit 74 naming it")
    func unreadable() throws {
        let directory = try TemporaryDirectory()
        try directory.write("", to: "d.json/inner")  // d.json is a directory: read(2) fails with EISDIR
        #expect(throws: LiveSetupError("cannot read --track file \(directory.path)/d.json: Is a directory", exitCode: 74)) {
            try RecordedTrack.load(pattern: directory.path + "/d.json", now: Self.now)
        }
    }

    @Test("given patterns with finer fields when named over a day then minutes and seconds are stepped, coarser ones by the hour")
    func fileNames() throws {
        let day = TestFixes.start - 8 * 3600
        #expect(RecordedTrack.fileNames(try TrackPathPattern("%F.json"), from: day, through: day + 86_399) == ["2026-11-24.json"])
        #expect(RecordedTrack.fileNames(try TrackPathPattern("%H.json"), from: day, through: day + 7_199) == ["00.json", "01.json"])
        #expect(RecordedTrack.fileNames(try TrackPathPattern("%H%M.json"), from: day, through: day + 150).count == 3)
        #expect(RecordedTrack.fileNames(try TrackPathPattern("%s.json"), from: day, through: day + 2).count == 3)
        #expect(RecordedTrack.fileNames(try TrackPathPattern("fixed.json"), from: day, through: day + 7_199) == ["fixed.json"])
    }
}

@Suite("TPV line scanner")
struct TPVLineScannerTests {
    func point(_ text: String) -> TrackPoint? {
        TPVLineScanner.point(Array(text.utf8)[...])
    }

    @Test("given lines that are no fix then nil", arguments: [
        "", "{}", "[]", "{\"class\":\"SKY\",\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2,\"mode\":3}",
        "{\"class\":\"TPV\",\"mode\":1,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2}",
        "{\"class\":\"TPV\",\"mode\":3,\"lat\":1,\"lon\":2}",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":91,\"lon\":2}",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2} x",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1-2,\"lon\":2}",
        String(repeating: "{\"properties\":", count: 40) + "{}" + String(repeating: "}", count: 40),
    ])
    func notFixes(line: String) {
        #expect(point(line) == nil)
    }

    @Test("given numbers in JSON's other forms and members it does not know then the values are read exactly")
    func numbersAndSkipping() {
        let line = "{ \"device\":\"a\\\"lat\\\":5\", \"class\" : \"TPV\", \"status\":2, \"mode\":2, \"time\":\"2026-11-24T08:00:00.250Z\","
            + "\"ecef\":{\"x\":[1,{\"y\":null}],\"lat\":true}, \"lat\":-4.7e1, \"lon\":-0.000000001, \"eph\":12345678901234567.5 }"
        let point = point(line)
        #expect(point == TrackPoint(
            time: TestFixes.start * 1000 + 250, latitude: -47, longitude: -0.000000001, horizontalError: 12345678901234567.5,
            isThreeD: false, isDGPS: true))
    }

    @Test("given 9-decimal coordinates when read then they equal Double's reading of the text")
    func exactDecimals() {
        for text in ["47.376621123", "8.541733999", "-179.999999999", "0.000000001", "89.123456789"] {
            let line = "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":\(text.hasPrefix("-1") ? "1" : text),\"lon\":\(text)}"
            #expect(point(line)?.longitude == Double(text))
        }
    }
}
