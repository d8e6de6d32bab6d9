import Foundation
import LocTrack
import LocTrackDistance
import LocTrackFormats
import LocTrackTrackFiles
import Testing

/// Files as a power cut, a kill or a bad disk leave them: what can be read is read, and one
/// line says what could not.
@Suite("Damaged track files", .timeLimit(.minutes(1)))
struct DamagedFilesTests {
    static let fixes = Array(GeneratedDrive().fixes.prefix(10))
    static let points = fixes.map(TrackPoint.init)

    /// The byte where line `number` (1-based) of `text` begins (counted in bytes: a CRLF is
    /// one Character to a String).
    static func offset(ofLine number: Int, in text: String) -> Int {
        Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).prefix(number - 1).reduce(0) { $0 + $1.count + 1 }
    }

    @Test("given JSON lines cut in the middle of line 7 (a power cut) when read then the 6 lines before are kept and the cut is named")
    func jsonLinesCutShort() {
        let text = Recorded.text(Self.fixes, .json)
        let reading = TrackFileReader.read(Array(text.utf8).cut(to: Self.offset(ofLine: 7, in: text) + 40))
        #expect(reading.points == Array(Self.points.prefix(6)))
        #expect(reading.unreadable == 0)
        #expect(reading.problem(named: "day.json") == "day.json: cut short at line 7: the last line has no end and is not whole JSON; the 6 points before it were read")
    }

    @Test("given JSON lines whose last lines a power cut left as zero bytes when read then the whole lines are kept and the zeros named")
    func jsonLinesEndingInZeros() {
        let bytes = Recorded.bytes(Self.fixes, .json) + [UInt8](repeating: 0, count: 4096)
        let reading = TrackFileReader.read(bytes)
        #expect(reading.points == Self.points)
        #expect(reading.problem(named: "day.json")
                == "day.json: cut short at line 11: 4096 zero bytes where the last records should be (a power cut); the 10 points before it were read")
    }

    @Test("given JSON lines cut inside a line and then zero bytes when read then the cut line is named, the lines before kept")
    func jsonLinesCutThenZeros() {
        let text = Recorded.text(Self.fixes, .json)
        let bytes = Array(text.utf8).cut(to: Self.offset(ofLine: 4, in: text) + 10) + [UInt8](repeating: 0, count: 100)
        let reading = TrackFileReader.read(bytes)
        #expect(reading.points == Array(Self.points.prefix(3)))
        #expect(reading.cutShort?.location == "line 4")
    }

    @Test("given JSON lines with garbage on lines 3 and 5 when read then the other lines are read and the first bad line is named with the count")
    func jsonLinesCorrupt() {
        var lines = Recorded.text(Self.fixes, .json).split(separator: "\n").map(String.init)
        lines[2] = "{\"class\":\"TPV\",\"time\":\"2026-11-23T00:00:02.000Z\",\"lat\":52.5,\u{0}\u{0}"
        lines[4] = "garbage"
        let reading = TrackFileReader.read(Array((lines.joined(separator: "\n") + "\n").utf8))
        #expect(reading.points == Self.points.enumerated().filter { $0.offset != 2 && $0.offset != 4 }.map(\.element))
        #expect(reading.unreadable == 2)
        #expect(reading.problem(named: "day.json")
                == "day.json: line 3: not JSON: invalid JSON at byte 60: expected a member name in double quotes after ',', found byte 0x00 (2 lines unreadable, skipped); 8 points read")
    }

    @Test("given CSV cut in the middle of a row when read then the rows before are kept and the cut is named")
    func csvCutShort() {
        let text = Recorded.text(Self.fixes, .csv)
        let reading = TrackFileReader.read(Array(text.utf8).cut(to: Self.offset(ofLine: 5, in: text) + 30))
        #expect(reading.points == Array(Self.points.prefix(3)))
        #expect(reading.problem(named: "day.csv") == "day.csv: cut short at line 5: the last row has no end and is not whole; the 3 points before it were read")
    }

    @Test("given CSV with a row of too few fields when read then that row is named and the others read")
    func csvShortRow() {
        var lines = Recorded.text(Self.fixes, .csv).split(separator: "\r\n").map(String.init)
        lines[3] = "2026-11-23T00:00:02.000Z,/dev/ttyACM0,3"
        let reading = TrackFileReader.read(Array((lines.joined(separator: "\r\n") + "\r\n").utf8))
        #expect(reading.points.count == 9)
        #expect(reading.problem(named: "day.csv") == "day.csv: line 4: 3 fields where the header has 16, skipped; 9 points read")
    }

    @Test("given loctrack's GPX cut in the middle of the 8th point when read then the 7 points before are kept and the line of the cut is named")
    func gpxCutShort() {
        let text = Recorded.text(Self.fixes, .gpx)
        // Lines: the XML declaration, <gpx …>, <trk>, <name>, <trkseg>, then one point a line.
        let reading = TrackFileReader.read(Array(text.utf8).cut(to: Self.offset(ofLine: 13, in: text) + 50))
        #expect(reading.points.count == 7)
        #expect(reading.points.map(\.time) == Self.fixes.prefix(7).map(\.time))
        #expect(reading.cutShort == .line(13, ""))
        #expect(reading.unreadable == 0)
        #expect(reading.problem(named: "day.gpx") == "day.gpx: cut short at line 13; the 7 points before it were read")
    }

    @Test("given GPX with a tag that does not close in the middle when read then the points before are kept, the line is named and nothing after is read")
    func gpxCorrupt() throws {
        var lines = Recorded.text(Self.fixes, .gpx).split(separator: "\n").map(String.init)
        lines[8] = lines[8].replacingOccurrences(of: "</time>", with: "</tim>")
        let reading = TrackFileReader.read(Array(lines.joined(separator: "\n").utf8))
        #expect(reading.points.count == 3)
        let problem = try #require(reading.stoppedAt)
        #expect(problem.location.hasPrefix("line 9, column "))
        #expect(problem.reason == "not well-formed XML")
        #expect(reading.cutShort == nil && reading.unreadable == 0)
        // libxml2's own message ("Opening and ending tag mismatch: …") is not loctrack's to
        // pass on: the line and column say where to look.
        #expect(reading.problem(named: "day.gpx")
                == "day.gpx: not well-formed XML at \(problem.location); the 3 points before it were read, nothing after it")
    }

    /// The day's first ten fixes as TCX, KML and GPX on one line (as GPSLogger writes it),
    /// with the text that starts each point.
    static let otherPrograms: [(name: String, bytes: [UInt8], point: String)] = [
        ("a.tcx", OtherPrograms.tcx(fixes), "<Trackpoint>"),
        ("a.kml", OtherPrograms.kml(fixes), "<when>"),
        ("a.gpx", Array(Recorded.text(fixes, .gpx).replacingOccurrences(of: "\n", with: "").utf8), "<trkpt"),
    ]

    /// The byte where the `number`th (1-based) `marker` begins in `bytes`.
    static func offset(of marker: String, number: Int, in bytes: [UInt8]) -> Int {
        let marker = Array(marker.utf8)
        let starts = bytes.indices.filter { bytes[$0...].starts(with: marker) }
        return starts[number - 1]
    }

    @Test("given a TCX, a KML and a one-line GPX cut inside the 8th point when read then the 7 points before are kept and the line of the cut is named",
          arguments: otherPrograms)
    func xmlCutShort(name: String, bytes: [UInt8], point: String) {
        let cut = bytes.cut(to: Self.offset(of: point, number: 8, in: bytes) + 30)
        let line = cut.count { $0 == 0x0A } + 1
        let reading = TrackFileReader.read(cut)
        #expect(reading.points.map(\.time) == Self.fixes.prefix(7).map(\.time))
        #expect(reading.problem(named: name) == "\(name): cut short at line \(line); the 7 points before it were read")
    }

    @Test("given a TCX, a KML and a one-line GPX with a bad byte in the 5th point when read then the 4 points before are kept and the line and column named",
          arguments: otherPrograms)
    func xmlCorrupt(name: String, bytes: [UInt8], point: String) throws {
        var corrupt = bytes
        let start = Self.offset(of: point, number: 5, in: bytes)
        corrupt[start + 1] = UInt8(ascii: "<")
        let line = corrupt[..<start].count { $0 == 0x0A } + 1
        let reading = TrackFileReader.read(corrupt)
        #expect(reading.points.map(\.time) == Self.fixes.prefix(4).map(\.time))
        let problem = try #require(reading.problem(named: name))
        #expect(problem.hasPrefix("\(name): not well-formed XML at line \(line), column "), "\(problem)")
        #expect(problem.hasSuffix("; the 4 points before it were read, nothing after it"), "\(problem)")
    }

    @Test("given a file of zero bytes only (a power cut right after it was made) when read then it is cut short with no points")
    func onlyZeros() {
        let reading = TrackFileReader.read([UInt8](repeating: 0, count: 512))
        #expect(reading.points.isEmpty)
        #expect(reading.problem(named: "x.json") == "x.json: cut short at line 1: 512 zero bytes where the last records should be (a power cut); nothing read")
    }
}

/// Values that are not numbers, or not positions, in each format.
@Suite("Non-finite and impossible values", .timeLimit(.minutes(1)))
struct ImpossibleValuesTests {
    static let time = "2026-11-23T08:00:00.000Z"

    @Test("given GPX points with lat NaN, lon inf and a latitude of 91 when read then each is unreadable and named, the good point is kept, the one without a time counted")
    func gpxNotNumbers() {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="NaN" lon="13.4"><time>\(Self.time)</time></trkpt>
            <trkpt lat="52.5" lon="inf"><time>\(Self.time)</time></trkpt>
            <trkpt lat="91" lon="13.4"><time>\(Self.time)</time></trkpt>
            <trkpt lat="52.5" lon="13.4"><time>\(Self.time)</time><speed>NaN</speed></trkpt>
            <trkpt lat="52.5" lon="13.4"><time>yesterday</time></trkpt>
            <trkpt lat="52.5" lon="13.4"/>
            </trkseg></trk></gpx>
            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.points == [TrackPoint(time: Timestamp(iso8601: Self.time)!, latitude: 52.5, longitude: 13.4)])
        #expect(reading.unreadable == 4 && reading.untimed == 1)
        #expect(reading.problem(named: "a.gpx") == "a.gpx: line 2: lat \"NaN\" is not a number (4 track points unreadable, skipped); 1 point read")
        #expect(reading.notes(named: "a.gpx") == ["a.gpx: 1 track point without a time skipped"])
    }

    @Test("given CSV rows with lat nan, an infinite speed and an eph of -1 when read then the row without a latitude is unreadable, the others have no speed or eph")
    func csvNotNumbers() {
        let text = "time,lat,lon,speed,eph\r\n\(Self.time),nan,13.4,,\r\n\(Self.time),52.5,13.4,inf,-1\r\n"
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.points == [TrackPoint(time: Timestamp(iso8601: Self.time)!, latitude: 52.5, longitude: 13.4)])
        #expect(reading.problem(named: "a.csv") == "a.csv: line 2: lat \"nan\" is not a number, skipped; 1 point read")
    }

    @Test("given JSON lines with NaN, a number beyond Double and a string latitude when read then each line is unreadable; a string speed is no speed")
    func jsonNotNumbers() {
        let text = """
            {"class":"TPV","mode":3,"time":"\(Self.time)","lat":NaN,"lon":13.4}
            {"class":"TPV","mode":3,"time":"\(Self.time)","lat":1e999,"lon":13.4}
            {"class":"TPV","mode":3,"time":"\(Self.time)","lat":"52.5","lon":13.4}
            {"class":"TPV","mode":3,"time":"\(Self.time)","lat":52.5,"lon":13.4,"speed":"NaN","eph":-3}

            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.points == [TrackPoint(time: Timestamp(iso8601: Self.time)!, latitude: 52.5, longitude: 13.4, isThreeD: true)])
        #expect(reading.unreadable == 3)
        #expect(reading.firstUnreadable?.location == "line 1")
        #expect(reading.firstUnreadable == .line(1, "not JSON: invalid JSON at byte 64: expected a value, found 'N'"))
    }
}
