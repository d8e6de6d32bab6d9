import Foundation
import LocTrack
import LocTrackDistance
import LocTrackFormats
import LocTrackRecordedLines
import LocTrackTrackFiles
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
        #expect(track.points.first == PackedTrackPoint(
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

    @Test("given a torn last line, an OwnTracks line, a fix without eph, and yesterday's fix when loaded then today's fixes, the OwnTracks one too, are kept and the torn line skipped")
    func skipsWhatIsNoFix() throws {
        let directory = try TemporaryDirectory()
        // `stream --format owntracks --output all.json` writes such lines: the page shows them, as `trips` counts them.
        let owntracks = "{\"_type\":\"location\",\"lat\":47.1,\"lon\":8.1,\"tst\":\(TestFixes.start + 5),\"acc\":12,\"tid\":\"pi\"}\n"
        let yesterday = Self.jsonLine(-86_400)
        let torn = String(Self.jsonLine(3).dropLast(20))
        try directory.write(yesterday + Self.jsonLine(1) + owntracks + Self.jsonLine(2, eph: "") + "\n" + torn, to: "all.json")
        let track = try RecordedTrack.load(pattern: directory.path + "/all.json", now: Self.now)
        #expect(track.points.map { $0.time / 1000 - TestFixes.start } == [1, 2, 5])
        #expect(track.points[1].horizontalError == nil)
        #expect(track.points.last == PackedTrackPoint(
            time: (TestFixes.start + 5) * 1000, latitude: 47.1, longitude: 8.1, horizontalError: 12, isThreeD: false))
        #expect(track.skippedLines == 1)
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

/// The line reader the page shares with `loctrack trips` (``RecordedLineReader``), as the
/// page takes its points: in place and through the JSON tree alike.
@Suite("Recorded lines, as the page reads them")
struct RecordedLineReaderTests {
    /// The page's point of `text`, read in place (`inPlace`) or through the tree; nil when no fix.
    func point(_ text: String, inPlace: Bool = true) -> PackedTrackPoint? {
        var reader = RecordedLineReader(inPlace: inPlace)
        return Array(text.utf8).withUnsafeBytes { bytes in
            guard !RecordedLineReader.isBlank(bytes), case .success(.point(let point)) = reader.outcome(of: bytes) else { return nil }
            return PackedTrackPoint(point)
        }
    }

    @Test("given lines that are no fix then nil, in place and through the tree", arguments: [
        "", "{}", "[]", "{\"class\":\"SKY\",\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2,\"mode\":3}",
        "{\"class\":\"TPV\",\"mode\":1,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2}",
        "{\"class\":\"TPV\",\"mode\":3,\"lat\":1,\"lon\":2}",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":91,\"lon\":2}",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2} x",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1-2,\"lon\":2}",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lat\":2,\"lon\":2}",
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"type\":\"Point\"},\"properties\":{\"class\":\"TPV\",\"mode\":3,"
            + "\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2}}",
        "{\"type\":\"Feature\",\"properties\":{\"class\":\"SKY\",\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2}}",
        "{\"_type\":\"transition\",\"lat\":1,\"lon\":2,\"tst\":1795507200}",
        // A sign before a nested value is no number and no object.
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2,\"x\":-{\"a\":1}}",
        "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":1,\"lon\":2,\"x\":-[1]}",
        String(repeating: "{\"properties\":", count: 40) + "{}" + String(repeating: "}", count: 40),
    ])
    func notFixes(line: String) {
        #expect(point(line) == nil)
        #expect(point(line, inPlace: false) == nil)
    }

    @Test("given numbers in JSON's other forms and members it does not know then the values are read exactly")
    func numbersAndSkipping() {
        let line = "{ \"device\":\"a\\\"lat\\\":5\", \"class\" : \"TPV\", \"status\":2, \"mode\":2, \"time\":\"2026-11-24T08:00:00.250Z\","
            + "\"ecef\":{\"x\":[1,{\"y\":null}],\"lat\":true}, \"lat\":-4.7e1, \"lon\":-0.000000001, \"eph\":12345678901234567.5 }"
        let expected = PackedTrackPoint(
            time: TestFixes.start * 1000 + 250, latitude: -47, longitude: -0.000000001, horizontalError: 12345678901234567.5,
            isThreeD: false, isDGPS: true)
        #expect(point(line) == expected)
        #expect(point(line, inPlace: false) == expected)
        // The same without the escape, so that it is read in place, nested `ecef` skipped.
        let plain = line.replacingOccurrences(of: "a\\\"lat\\\":5", with: "a")
        #expect(point(plain) == expected)
    }

    @Test("given a GeoJSON Feature and an OwnTracks location then their points hold the altitudes and the fix's kind")
    func geoJSONAndOwnTracks() {
        let feature = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,47.25,458.0]},\"properties\":"
            + "{\"class\":\"TPV\",\"mode\":3,\"status\":2,\"time\":\"2026-11-24T08:00:01.000Z\",\"lat\":47.25,\"lon\":8.5,"
            + "\"altHAE\":458.0,\"altMSL\":410.5,\"eph\":3.5}}"
        let featurePoint = PackedTrackPoint(
            time: (TestFixes.start + 1) * 1000, latitude: 47.25, longitude: 8.5, horizontalError: 3.5, altitudeMSL: 410.5,
            altitudeHAE: 458, isThreeD: true, isDGPS: true)
        #expect(point(feature) == featurePoint)
        #expect(point(feature, inPlace: false) == featurePoint)
        let location = "{\"_type\":\"location\",\"lat\":52.5162899,\"lon\":13.3776500,\"tst\":1795507202,\"acc\":10,\"alt\":34,"
            + "\"vel\":9,\"tid\":\"pi\"}"
        let locationPoint = PackedTrackPoint(
            time: (TestFixes.start + 2) * 1000, latitude: 52.5162899, longitude: 13.37765, horizontalError: 10, altitudeMSL: 34,
            isThreeD: true)
        #expect(point(location) == locationPoint)
        #expect(point(location, inPlace: false) == locationPoint)
    }

    @Test("given 9-decimal coordinates when read then they equal Double's reading of the text")
    func exactDecimals() {
        for text in ["47.376621123", "8.541733999", "-179.999999999", "0.000000001", "89.123456789"] {
            let line = "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-24T08:00:00.000Z\",\"lat\":\(text.hasPrefix("-1") ? "1" : text),\"lon\":\(text)}"
            #expect(point(line)?.longitude == Double(text))
        }
    }
}

/// One reader of recorded tracks: the page (`serve --track`) and `loctrack trips` read the
/// same file into the same points, whatever format each line has.
@Suite("Recorded track: the page's points are the trips'")
struct RecordedTrackAndTripsTests {
    @Test("given a file of TPV, GeoJSON and OwnTracks lines with SKY and torn lines when the page and trips read it then they give the same points")
    func samePoints() throws {
        let directory = try TemporaryDirectory()
        let start = TestFixes.start
        var text = ""
        for second in Int64(1)...30 {
            let latitude = String(format: "%.9f", 47 + Double(second) * 0.0001)
            let tpv = "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":\(second % 4 == 0 ? 2 : 3),\"status\":\(second % 5 == 0 ? 2 : 1),"
                + "\"time\":\"\(TestFixes.time(second))\",\"lat\":\(latitude),\"lon\":8.500000000,\"altHAE\":458.0000,"
                + "\"altMSL\":410.5000,\"eph\":4.200,\"speed\":12.000}"
            switch second % 3 {
            case 0: text += tpv + "\n"
            case 1:
                text += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,\(latitude),458.0]},"
                    + "\"properties\":\(tpv)}\n"
            default:
                text += "{\"_type\":\"location\",\"lat\":\(latitude),\"lon\":8.5000000,\"tst\":\(start + second),\"acc\":4,"
                    + "\"alt\":411,\"vel\":43,\"tid\":\"pi\"}\n"
            }
            if second % 10 == 0 { text += "{\"class\":\"SKY\",\"time\":\"\(TestFixes.time(second))\",\"satellites\":[{\"PRN\":1}]}\n" }
        }
        text += "{\"class\":\"TPV\",\"mode\":3,\"time\""  // torn: the writer was killed
        try directory.write(text, to: "day.json")

        let page = try RecordedTrack.load(pattern: directory.path + "/day.json", now: TestFixes.start + 3_600)
        let trips = TrackFileReader.read(Array(text.utf8))
        #expect(trips.points.count == 30)
        #expect(trips.cutShort != nil && trips.unreadable == 0)
        #expect(page.points == trips.points.map { PackedTrackPoint($0) })
        #expect(page.skippedLines == 4, "3 SKY lines and the torn one")
        // Real values, one line of each kind.
        #expect(trips.points[0] == TrackPoint(
            time: Timestamp(seconds: start + 1), latitude: 47.0001, longitude: 8.5, speed: 12, horizontalError: 4.2,
            device: "/dev/ttyACM0", altitudeMSL: 410.5, altitudeHAE: 458, isThreeD: true))
        #expect(trips.points[1] == TrackPoint(
            time: Timestamp(seconds: start + 2), latitude: 47.0002, longitude: 8.5, speed: 43 / 3.6, horizontalError: 4,
            altitudeMSL: 411, isThreeD: true))
        #expect(trips.points[4] == TrackPoint(
            time: Timestamp(seconds: start + 5), latitude: 47.0005, longitude: 8.5, speed: 43 / 3.6, horizontalError: 4,
            altitudeMSL: 411, isThreeD: true))
        #expect(trips.points[3].isThreeD == false && trips.points[9].isDGPS)
    }
}
