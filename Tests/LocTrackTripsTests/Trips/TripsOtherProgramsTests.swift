import Foundation
import LocTrack
import LocTrackFormats
import LocTrackProcess
import LocTrackSystem
import LocTrackTrackFiles
import Testing

/// `loctrack-trips`' whole run on files other programs exported, in memory: TCX and KML, files
/// that are no track, and what a whole file leaves out; stderr and the exit code exactly.
@Suite("loctrack trips on other programs' files, in memory", .timeLimit(.minutes(1)))
struct TripsOtherProgramsTests {
    static let drive = GeneratedDrive()
    static let whole = Recorded.bytes(drive.fixes, .json)

    static func run(_ files: [(String, [UInt8])]) -> (code: ExitCode, errors: [String], trips: Int) {
        let environment = MemoryTripsEnvironment(files: Dictionary(uniqueKeysWithValues: files))
        let code = TripsProgram(environment).run(files: files.map(\.0), format: .json)
        return (code, environment.errors, environment.outputLines.count)
    }

    @Test("given the morning as Garmin's TCX and the afternoon as Google's KML, overlapping, when run then the two trips, nothing on stderr, exit 0")
    func tcxAndKML() {
        let result = Self.run([
            ("pm.kml", OtherPrograms.kml(Self.drive.fixes[1_000...], timesFirst: true)),
            ("am.tcx", OtherPrograms.tcx(Self.drive.fixes[..<1_060])),
        ])
        #expect(result.code == .success)
        #expect(result.errors.isEmpty)
        #expect(result.trips == 2)
    }

    @Test("given a GPX whose logger wrote points without a time and points of one time when run then a note each on stderr, its trips, exit 0")
    func notes() {
        var text = Recorded.text(Self.drive.fixes, .gpx)
        // Three points lose their time; the next three take the time of the one before them.
        for second in ["00:00:10", "00:00:11", "00:00:12"] {
            text = text.replacingOccurrences(of: "<time>2026-11-23T\(second).000Z</time>", with: "")
        }
        for second in ["00:03:21", "00:03:22", "00:03:23"] {
            text = text.replacingOccurrences(of: "2026-11-23T\(second).000Z", with: "2026-11-23T00:03:20.000Z")
        }
        let result = Self.run([("day.gpx", Array(text.utf8))])
        #expect(result.code == .success)
        #expect(result.errors == [
            "day.gpx: 3 track points without a time skipped",
            "day.gpx: 4 points share their time with another point; one point per time kept",
        ])
        #expect(result.trips == 2)
    }

    @Test("given files that are no track beside a whole one when run then one line each says what it is, the whole one's trips, exit 65")
    func notTracks() {
        let result = Self.run([
            ("map.svg", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)),
            ("route.kml", Array("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark><LineString><coordinates>13.4,52.5 13.5,52.5</coordinates></LineString></Placemark></kml>".utf8)),
            ("tour.gpx", Array("<gpx version=\"1.1\"><rte><rtept lat=\"1\" lon=\"2\"/></rte><wpt lat=\"1\" lon=\"2\"/><wpt lat=\"1\" lon=\"3\"/></gpx>".utf8)),
            ("plan.gpx", Array("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/><trkpt lat=\"1\" lon=\"3\"/></trkseg></trk></gpx>".utf8)),
            ("day.json", Self.whole),
        ])
        #expect(result.code == .dataError)
        #expect(result.errors == [
            "map.svg: not GPX, TCX or KML (root element <svg>); nothing read",
            "route.kml: KML without a gx:Track (a LineString has no times); nothing read",
            "tour.gpx: GPX with no track points (1 route, 2 waypoints); nothing read",
            "plan.gpx: no point has a time; nothing read",
        ])
        #expect(result.trips == 2)
    }

    @Test("given a TCX cut inside a Trackpoint and a KML corrupt before its end when run then one line each in loctrack's words, exit 65")
    func damaged() throws {
        let tcx = OtherPrograms.tcx(Self.drive.fixes[..<760])
        let tcxLines = tcx.split(separator: 0x0A, omittingEmptySubsequences: false)
        // 17 lines of head, 16 a Trackpoint: cut inside the 701st.
        let cut = Array(tcxLines.prefix(17 + 16 * 700 + 4).joined(separator: [0x0A]))
        let kml = Array(String(decoding: OtherPrograms.kml(Self.drive.fixes[700...]), as: UTF8.self)
            .replacingOccurrences(of: "<when>2026-11-23T00:20:00.000Z</when>", with: "<when>2026-11-23T00:20:00.000Z</wen>").utf8)
        let result = Self.run([("am.tcx", cut), ("pm.kml", kml)])
        #expect(result.code == .dataError)
        #expect(result.errors.count == 2)
        #expect(result.errors.first == "am.tcx: cut short at line 11221; the 700 points before it were read")
        let corrupt = try #require(result.errors.last)
        // 14 lines of head, 2 a point: the 501st point's <when> is on line 1015.
        #expect(corrupt.hasPrefix("pm.kml: not well-formed XML at line 1015, column "), "\(corrupt)")
        #expect(corrupt.hasSuffix("; the 500 points before it were read, nothing after it"), "\(corrupt)")
        // The points read run on from the cut file to the corrupt one, to 00:19:59: the
        // morning's drive, and the first 200 s of the afternoon's, a trip that the end cuts off.
        #expect(result.trips == 2)
    }
}
