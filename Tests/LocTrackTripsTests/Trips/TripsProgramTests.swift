import Foundation
import LocTrack
import LocTrackFormats
import LocTrackProcess
import LocTrackSystem
import LocTrackTrackFiles
import Testing

/// `loctrack-trips`' whole run on files in memory: what goes to stdout and stderr, and the exit code.
@Suite("loctrack trips, in memory", .timeLimit(.minutes(1)))
struct TripsProgramTests {
    static let drive = GeneratedDrive()
    /// The day split in two at the second parking, overlapping by a minute, as two days' files do.
    static let morning = Recorded.bytes(drive.fixes[..<1_060], .json)
    static let afternoon = Recorded.bytes(drive.fixes[1_000...], .gpx)

    @Test("given two overlapping files given afternoon first when run as JSON then two TRIP lines, in time order, nothing on stderr, exit 0")
    func overlappingFilesOutOfOrder() throws {
        let environment = MemoryTripsEnvironment(files: ["pm.gpx": Self.afternoon, "am.json": Self.morning])
        let code = TripsProgram(environment).run(files: ["pm.gpx", "am.json"], format: .json)
        #expect(code == .success)
        #expect(environment.errors.isEmpty)
        let trips = try environment.outputLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(trips.count == 2)
        #expect(trips.allSatisfy { $0["class"] as? String == "TRIP" })
        let starts = trips.compactMap { $0["start"] as? String }
        #expect(starts == starts.sorted() && starts.count == 2)
        // The first trip is the morning's JSON, which names the device.
        #expect(trips[0]["device"] as? String == "/dev/ttyACM0")
    }

    @Test("given the day as text when run then one line per trip and the totals line")
    func textWithTotals() throws {
        let environment = MemoryTripsEnvironment(files: ["day.csv": Recorded.bytes(Self.drive.fixes, .csv)])
        #expect(TripsProgram(environment).run(files: ["day.csv"], format: .text) == .success)
        let lines = environment.outputLines
        try #require(lines.count == 3)
        #expect(lines[0].hasPrefix("2026-11-23T00:05:") && lines[0].hasSuffix("/dev/ttyACM0"))
        #expect(lines[2].hasPrefix("2 trips  ") && lines[2].contains(" km  13 min 18 s moving  (") && lines[2].hasSuffix(" km in all; 1700 points from 1 file)"), "\(lines[2])")
    }

    @Test("given the day as CSV when run then the header and two rows")
    func csv() {
        let environment = MemoryTripsEnvironment(files: ["day.json": Recorded.bytes(Self.drive.fixes, .json)])
        #expect(TripsProgram(environment).run(files: ["day.json"], format: .csv) == .success)
        let rows = environment.output.components(separatedBy: "\r\n")
        #expect(rows.count == 4 && rows[0] == "start,end,distance,duration,movingTime,maxSpeed,averageSpeed,startLat,startLon,endLat,endLon,device")
        #expect(rows[3].isEmpty)
    }

    @Test("given a truncated file beside a whole one when run then its line on stderr names it, its points still count, exit 65")
    func truncatedFile() {
        // Cut inside line 751: after the morning's drive (seconds 300 to 699), before its stop was certain.
        let lines = Recorded.text(Self.drive.fixes[..<1_060], .json).split(separator: "\n")
        let cut = Array((lines.prefix(750).joined(separator: "\n") + "\n" + lines[750].prefix(50)).utf8)
        let environment = MemoryTripsEnvironment(files: ["am.json": cut, "pm.gpx": Self.afternoon])
        let code = TripsProgram(environment).run(files: ["am.json", "pm.gpx"], format: .json)
        #expect(code == .dataError)
        #expect(environment.errors.count == 1)
        #expect(environment.errors == ["am.json: cut short at line 751: the last line has no end and is not whole JSON; the 750 points before it were read"])
        // The morning's drive ends before the cut: both trips are there.
        #expect(environment.outputLines.count == 2)
    }

    @Test("given a missing file beside a bad and a good one when run then each gets its line, the good is read, exit 66")
    func missingFile() {
        let environment = MemoryTripsEnvironment(files: ["day.json": Recorded.bytes(Self.drive.fixes, .json), "notes.txt": Array("hello\n".utf8)])
        let code = TripsProgram(environment).run(files: ["gone.json", "notes.txt", "day.json"], format: .json)
        #expect(code == .noInput)
        #expect(environment.errors == [
            "cannot read gone.json: No such file or directory",
            "notes.txt: not a track file (not JSON lines, CSV with time, lat and lon columns, GPX, TCX or KML); nothing read",
        ])
        #expect(environment.outputLines.count == 2)
    }

    @Test("given a reader that goes away after the first trip (| head -1) when run then the rest is not written and the exit is 0")
    func closedPipe() {
        let environment = MemoryTripsEnvironment(files: ["day.json": Recorded.bytes(Self.drive.fixes, .json)],
                                                 outputFailure: (.brokenPipe, afterWrites: 1))
        #expect(TripsProgram(environment).run(files: ["day.json"], format: .json) == .success)
        #expect(environment.outputLines.count == 1)
        #expect(environment.errors.isEmpty)
    }

    @Test("given a stdout that fails (a full disk) when run then one line says so and the exit is 74")
    func outputFails() {
        let environment = MemoryTripsEnvironment(files: ["day.json": Recorded.bytes(Self.drive.fixes, .json)],
                                                 outputFailure: (Errno(code: ENOSPC), afterWrites: 0))
        #expect(TripsProgram(environment).run(files: ["day.json"], format: .text) == .outputFailed)
        #expect(environment.errors == ["cannot write the trips: No space left on device"])
    }

    @Test("given stdin's bytes as - when run then they are read and named stdin in messages")
    func standardInputName() {
        let environment = MemoryTripsEnvironment(files: ["-": Array("garbage\n".utf8)])
        #expect(TripsProgram(environment).run(files: ["-"], format: .json) == .dataError)
        #expect(environment.errors == ["stdin: not a track file (not JSON lines, CSV with time, lat and lon columns, GPX, TCX or KML); nothing read"])
    }
}
