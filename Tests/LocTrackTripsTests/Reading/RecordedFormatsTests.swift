import Foundation
import LocTrack
import LocTrackDistance
@testable import LocTrackFormats
import LocTrackTrackFiles
import Testing

/// Each format `stream --output` records, written by loctrack's own encoders and read back.
@Suite("Track files loctrack recorded", .timeLimit(.minutes(1)))
struct RecordedFormatsTests {
    static let drive = GeneratedDrive()

    @Test("given JSON lines stream --format json wrote when read then every fix comes back with its time, position, speed, eph and device")
    func jsonLines() {
        let reading = TrackFileReader.read(Recorded.bytes(Self.drive.fixes, .json))
        #expect(reading.format == .jsonLines)
        #expect(reading.isWhole)
        #expect(reading.points == Self.drive.points)
    }

    @Test("given CSV stream --format csv wrote when read then every row comes back with its time, position, speed, eph and device")
    func csv() {
        let reading = TrackFileReader.read(Recorded.bytes(Self.drive.fixes, .csv))
        #expect(reading.format == .csv)
        #expect(reading.isWhole)
        #expect(reading.points == Self.drive.points)
    }

    @Test("given GPX stream --format gpx wrote when read then every point comes back with its time, position and loctrack:eph, no speed or device (GPX 1.1 has none)")
    func gpx() {
        let reading = TrackFileReader.read(Recorded.bytes(Self.drive.fixes, .gpx))
        #expect(reading.format == .gpx)
        #expect(reading.isWhole)
        let expected = Self.drive.fixes.map { fix in
            TrackPoint(time: fix.time, latitude: fix.latitude, longitude: fix.longitude, horizontalError: fix.horizontalError)
        }
        #expect(reading.points == expected)
    }

    @Test("given GPX recorded in two sessions (a segment each) when read then the points of both segments come back in order")
    func gpxWithSegments() {
        var encoder = GPXEncoder()
        var text = encoder.begin()
        for (index, fix) in Self.drive.fixes.prefix(20).enumerated() {
            if index == 10 { encoder.breakTrack() }
            text += encoder.encode(fix)
        }
        text += encoder.end()
        #expect(text.components(separatedBy: "<trkseg>").count == 3)
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points.map(\.time) == Self.drive.fixes.prefix(20).map(\.time))
    }

    @Test("given a GPX file over 10 MB (a day at 1 Hz is 13 MB) when read then it is read to its end: libxml2 is fed in chunks, not past its 10 MB look-ahead limit")
    func largeGPX() {
        // Blank lines stand in for a day of points: the size is what matters, and points cost
        // seconds in a debug build.
        var encoder = GPXEncoder()
        var text = encoder.begin()
        for fix in Self.drive.fixes.prefix(5) { text += encoder.encode(fix) }
        text += String(repeating: String(repeating: " ", count: 79) + "\n", count: 140_000)
        for fix in Self.drive.fixes.dropFirst(5).prefix(5) { text += encoder.encode(fix) }
        text += encoder.end()
        #expect(text.utf8.count > 11_000_000)
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points.count == 10)
    }

    @Test("given GeoJSON lines stream --format geojson wrote when read then the TPV in each Feature's properties is the point")
    func geoJSONLines() {
        let reading = TrackFileReader.read(Recorded.bytes(Self.drive.fixes, .geojson))
        #expect(reading.format == .jsonLines)
        #expect(reading.isWhole)
        #expect(reading.points == Self.drive.points)
    }

    @Test("given OwnTracks lines stream --format owntracks wrote when read then each location is a point: tst in seconds, vel km/h as m/s, acc as the error")
    func ownTracksLines() throws {
        let fixes = Self.drive.fixes
        let reading = TrackFileReader.read(Recorded.bytes(fixes, .owntracks))
        #expect(reading.isWhole)
        try #require(reading.points.count == fixes.count)
        for (point, fix) in zip(reading.points, fixes) {
            #expect(point.time == fix.time)
            #expect(abs(point.latitude - fix.latitude) < 1e-7 && abs(point.longitude - fix.longitude) < 1e-7)
            #expect(abs((point.speed ?? -1) - (fix.speed! * 3.6).rounded() / 3.6) < 1e-9)
            #expect(point.horizontalError == 6)
            #expect(point.device == nil)
        }
    }

    @Test("given a JSON lines file with SKY, TRIP and no-fix TPV lines between the fixes (a gpspipe -w log) when read then they are skipped quietly")
    func otherClassesAreSkipped() {
        let fixLines = Recorded.text(Self.drive.fixes.prefix(2), .json).split(separator: "\n").map(String.init)
        let text = """
            {"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}
            {"class":"TPV","device":"/dev/ttyACM0","mode":1}
            \(fixLines[0])
            {"class":"SKY","device":"/dev/ttyACM0","hdop":0.9,"satellites":[]}
            {"class":"TRIP","state":"start","time":"2026-11-23T00:05:00.000Z"}
            {"_type":"lwt","tst":1795392000}
            \(fixLines[1])

            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == Array(Self.drive.points.prefix(2)))
    }

    @Test("given a CSV file with the columns in another order, LF line ends and no final newline when read then the columns are found by name")
    func csvColumnsByName() {
        let text = "lon,lat,time,speed\n13.400000000,52.500000000,2026-11-23T00:00:00.000Z,3.500\n13.400100000,52.500000000,2026-11-23T00:00:01.000Z,"
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [
            TrackPoint(time: GeneratedDrive.start, latitude: 52.5, longitude: 13.4, speed: 3.5),
            TrackPoint(time: Timestamp(seconds: GeneratedDrive.start.seconds + 1), latitude: 52.5, longitude: 13.4001),
        ])
    }

    @Test("given a device name with a comma and a quote when recorded as CSV and read then it comes back whole (RFC 4180 quoting)")
    func csvQuotedDevice() {
        let fix = Fix(time: GeneratedDrive.start, mode: .twoD, device: "tcp://a,\"b\"", latitude: 1, longitude: 2)
        let reading = TrackFileReader.read(Recorded.bytes([fix], .csv))
        #expect(reading.isWhole)
        #expect(reading.points.map(\.device) == ["tcp://a,\"b\""])
    }

    @Test("given an empty file (a recording with no fix yet) when read then it is whole, with no points")
    func emptyFile() {
        for text in ["", "\n\n"] {
            let reading = TrackFileReader.read(Array(text.utf8))
            #expect(reading.isWhole && reading.points.isEmpty)
        }
    }

    @Test("given text lines, a CSV without a time column and a PNG when read then none is a track file")
    func notATrack() {
        for text in [Recorded.text(Self.drive.fixes.prefix(3), .text), "a,b,c\n1,2,3\n", "\u{89}PNG\r\n"] {
            let reading = TrackFileReader.read(Array(text.utf8))
            #expect(reading.format == nil, "\(text)")
            #expect(reading.problem(named: "x.txt")
                    == "x.txt: not a track file (not JSON lines, CSV with time, lat and lon columns, GPX, TCX or KML); nothing read")
        }
    }
}
