import Foundation
import LocTrack
import LocTrackFormats
import LocTrackTestSupport
import Testing

/// `loctrack trips` as a user runs it: the built `loctrack` parses the words and becomes the
/// built `loctrack-trips` beside it, which reads real files (written by loctrack's encoders).
@Suite("loctrack trips, end to end", .timeLimit(.minutes(1)))
struct TripsEndToEndTests {
    static let drive = GeneratedDrive()

    /// A folder of the day's files: the morning as JSON lines, the midday as CSV, the
    /// afternoon as GPX, overlapping by a minute each.
    final class DayFolder: Sendable {
        let path: String

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("loctrack-trips-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let fixes = TripsEndToEndTests.drive.fixes
            try write("am.json", Recorded.bytes(fixes[..<760], .json))
            try write("midday.csv", Recorded.bytes(fixes[700..<1_060], .csv))
            try write("pm.gpx", Recorded.bytes(fixes[1_000...], .gpx))
        }

        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        }

        func file(_ name: String) -> String { path + "/" + name }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func trips(_ result: LoctrackResult) throws -> [[String: Any]] {
        let objects = try result.jsonObjects()
        #expect(objects.allSatisfy { $0["class"] as? String == "TRIP" })
        return objects
    }

    @Test("given a day in three files of three formats, given out of order, when loctrack trips runs in a pipe then two TRIP lines, exit 0, nothing on stderr")
    func threeFormats() async throws {
        let day = try DayFolder()
        let result = try await LoctrackProcess.run(["trips", day.file("pm.gpx"), day.file("am.json"), day.file("midday.csv")])
        #expect(result.status == .exited(0), "\(result)")
        #expect(result.stderr.isEmpty)
        let trips = try Self.trips(result)
        #expect(trips.count == 2)
        let starts = trips.compactMap { $0["start"] as? String }
        #expect(starts.count == 2 && starts == starts.sorted())
        for trip in trips {
            let distance = try #require(trip["distance"] as? Double)
            let duration = try #require(trip["duration"] as? Double)
            let average = try #require(trip["averageSpeed"] as? Double)
            #expect(abs(average - distance / duration) < 0.001)
            #expect(trip["startLat"] is Double && trip["endLon"] is Double)
        }
    }

    @Test("given the day when run with --format text then one line per trip and the totals; with --format csv the header and a row per trip")
    func textAndCSV() async throws {
        let day = try DayFolder()
        let files = [day.file("am.json"), day.file("midday.csv"), day.file("pm.gpx")]
        let text = try await LoctrackProcess.run(["trips", "--format", "text"] + files)
        #expect(text.status == .exited(0), "\(text)")
        #expect(text.stdoutLines.count == 3)
        #expect(text.stdoutLines.last?.hasPrefix("2 trips  ") == true)
        #expect(text.stdoutLines.last?.hasSuffix(" km in all; 1700 points from 3 files)") == true)
        let csv = try await LoctrackProcess.run(["trips", "--format=csv"] + files)
        #expect(csv.status == .exited(0), "\(csv)")
        let rows = csv.stdout.components(separatedBy: "\r\n")
        #expect(rows.first == "start,end,distance,duration,movingTime,maxSpeed,averageSpeed,startLat,startLon,endLat,endLon,device")
        #expect(rows.count == 4 && rows.last == "")
    }

    @Test("given a cut JSON file, a corrupt GPX and a missing file beside good ones when run then one stderr line each, the trips still printed, exit 66")
    func damagedAndMissing() async throws {
        let day = try DayFolder()
        let json = Recorded.bytes(Self.drive.fixes[..<760], .json)
        try day.write("cut.json", json.cut(to: json.count - 25))
        try day.write("bad.gpx", Array("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>x</trkpt>\n</gpx>\n".utf8))
        let result = try await LoctrackProcess.run([
            "trips", day.file("cut.json"), day.file("gone.json"), day.file("bad.gpx"), day.file("midday.csv"), day.file("pm.gpx"),
        ])
        #expect(result.status == .exited(66), "\(result)")
        #expect(result.stderrLines.count == 3)
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("loctrack: ") })
        #expect(result.stderrLines.contains("loctrack: \(day.file("cut.json")): cut short at line 760: the last line has no end and is not whole JSON; the 759 points before it were read"))
        #expect(result.stderrLines.contains("loctrack: cannot read \(day.file("gone.json")): No such file or directory"))
        #expect(result.stderrLines.contains {
            $0.hasPrefix("loctrack: \(day.file("bad.gpx")): not well-formed XML at line 1, column ") && $0.hasSuffix("; nothing read")
        })
        #expect(try Self.trips(result).count == 2)
    }

    @Test("given only a file that is no track when run then its line on stderr and exit 65")
    func notATrack() async throws {
        let day = try DayFolder()
        try day.write("notes.txt", Array("shopping: milk\n".utf8))
        let result = try await LoctrackProcess.run(["trips", day.file("notes.txt")])
        #expect(result.status == .exited(65), "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == ["loctrack: \(day.file("notes.txt")): not a track file (not JSON lines, CSV with time, lat and lon columns, GPX, TCX or KML); nothing read"])
    }

    @Test("given a reader that takes one line (| head -1) when run then it exits 0")
    func closedPipe() async throws {
        let day = try DayFolder()
        let result = try await LoctrackProcess.run(["trips", day.file("am.json"), day.file("pm.gpx")], stdout: .pipeClosedAfter(lines: 1))
        #expect(result.status == .exited(0), "\(result)")
        #expect(result.stderr.isEmpty)
    }

    @Test("given a stdout that cannot be written (/dev/full) when run then one line and exit 74")
    func fullDisk() async throws {
        let day = try DayFolder()
        let result = try await LoctrackProcess.run(["trips", day.file("am.json")], stdout: .file("/dev/full"))
        #expect(result.status == .exited(74), "\(result)")
        #expect(result.stderrLines == ["loctrack: cannot write the trips: No space left on device"])
    }

    @Test("given bad words when run then one line and exit 64, before anything is read", arguments: [
        (["trips"], "loctrack: 'trips' needs at least one track file; try 'loctrack help trips'"),
        (["trips", "--format", "gpx", "a.json"], "loctrack: invalid value 'gpx' for '--format': expected one of json, text, csv"),
        (["trips", "--follow", "a.json"], "loctrack: unknown option '--follow' for 'trips'; try 'loctrack help trips'"),
    ])
    func usage(words: [String], line: String) async throws {
        let result = try await LoctrackProcess.run(words)
        #expect(result.status == .exited(64), "\(result)")
        #expect(result.stderrLines == [line])
        #expect(result.stdout.isEmpty)
    }

    @Test("given no loctrack-trips where LOCTRACK_TRIPS points when run then it says where it looked and exits 69")
    func programMissing() async throws {
        let result = try await LoctrackProcess.run(["trips", "a.json"], environment: ["LOCTRACK_TRIPS": "/nonexistent/loctrack-trips"])
        #expect(result.status == .exited(69), "\(result)")
        #expect(result.stderrLines == ["loctrack: cannot read trips: loctrack-trips is not installed (looked for /nonexistent/loctrack-trips)"])
    }

    @Test("given loctrack-trips run by hand with the user's words when run then it says it is loctrack's and exits 64")
    func programByHand() async throws {
        let program = URL(fileURLWithPath: LoctrackProcess.executablePath).deletingLastPathComponent().appendingPathComponent("loctrack-trips").path
        let process = try ChildProcess(executable: program, arguments: [program, "a.json"], stdin: .null, stdout: .pipe, stderr: .pipe)
        let result = try await process.result(timeLimit: .seconds(15))
        #expect(result.status == .exited(64), "\(result)")
        #expect(result.stderrLines == ["loctrack: loctrack-trips is started by `loctrack trips` (expected --format FORMAT -- FILE…); run `loctrack trips --help`"])
    }

    @Test("given the day's JSON on stdin as - when run then its trips are printed")
    func standardInput() async throws {
        let day = try DayFolder()
        let process = try ChildProcess(
            executable: LoctrackProcess.executablePath, arguments: [LoctrackProcess.executablePath, "trips", "-", day.file("pm.gpx")],
            stdin: .pipe, stdout: .pipe, stderr: .pipe)
        process.writeToStdin(String(decoding: Recorded.bytes(Self.drive.fixes[..<1_060], .json), as: UTF8.self))
        process.closeStdin()
        let result = try await process.result(timeLimit: .seconds(15))
        #expect(result.status == .exited(0), "\(result)")
        #expect(try Self.trips(result).count == 2)
    }
}
