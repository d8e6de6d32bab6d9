import Foundation
import Glibc
import LocTrack
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// `--output`: track files written beside a plain `stream` on the same gpsd, so each
    /// file is compared with what stdout gets.
    @Suite("Recording: stream --output into track files", .serialized, .timeLimit(.minutes(2)))
    struct Recording {
        /// Runs `stream --output PATH` and a plain `stream --format FORMAT` on the same gpsd
        /// over `log`; returns the recorder's result and the plain stream's stdout.
        private func record(_ log: NMEALog, format: String, path: String, extra: [String] = [])
            async throws -> (recorded: LoctrackResult, printed: String) {
            try await withGPSFake(log) { fake in
                let results = try await fake.run([
                    ["stream", "--no-reconnect", "--format", format, "--output", path] + extra,
                    ["stream", "--no-reconnect", "--format", format],
                ])
                return (results[0], results[1].stdout)
            }
        }

        /// loctrack's stderr without gpsd's notice that the device signed off: the log ends at once,
        /// so that notice may come before or after the track writer's error (two threads, one
        /// stderr; which is first depends on the machine's load), and only the writer's lines are
        /// these tests' subject.
        static func writerLines(_ result: LoctrackResult) -> [String] {
            result.stderrLines.filter { !$0.contains("gpsd lost device ") }
        }

        @Test("given a GPX track file when recorded and recorded into again then it is the document stdout gets, then continued in a second segment of the same track", .timeLimit(.minutes(1)))
        func gpxRecordedThenContinued() async throws {
            let folder = try TrackFiles.temporaryFolder("gpx")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = folder + "/track.gpx"
            let first = try await record(NMEALog.walk(epochs: 8), format: "gpx", path: path)
            #expect(first.recorded.status == .exited(69), "\(first.recorded)")
            #expect(first.recorded.stdout.isEmpty)
            let afterFirst = try #require(TrackFiles.text(path))
            #expect(afterFirst == first.printed, "the file is stdout's document byte for byte")
            #expect(TrackFiles.points(afterFirst).count == 8)
            #expect(TrackFiles.isWellFormedXML(afterFirst))

            let start = Timestamp(seconds: NMEALog.defaultStart.seconds + 60)
            let second = try await record(NMEALog.walk(epochs: 5, start: start), format: "gpx", path: path)
            #expect(second.recorded.status == .exited(69), "\(second.recorded)")
            let afterSecond = try #require(TrackFiles.text(path))
            #expect(TrackFiles.isWellFormedXML(afterSecond))
            let expectedPoints: [String] = TrackFiles.points(first.printed) + TrackFiles.points(second.printed)
            #expect(TrackFiles.points(afterSecond) == expectedPoints)
            #expect(TrackFiles.count("<trk>", in: afterSecond) == 1)
            #expect(TrackFiles.count("<trkseg>", in: afterSecond) == 2)
            // The first run's document up to its last point is kept as it was.
            let firstBody = afterFirst.components(separatedBy: "    </trkseg>\n")[0]
            #expect(afterSecond.hasPrefix(firstBody + "    </trkseg>\n    <trkseg>\n"))
            #expect(afterSecond.hasSuffix("    </trkseg>\n  </trk>\n</gpx>\n"))
        }

        @Test("given a CSV track file when recorded into twice then its header is there once and its rows are stdout's", .timeLimit(.minutes(1)))
        func csvContinuedWithoutSecondHeader() async throws {
            let folder = try TrackFiles.temporaryFolder("csv")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = folder + "/track.csv"
            let first = try await record(NMEALog.walk(epochs: 6), format: "csv", path: path)
            let second = try await record(
                NMEALog.walk(epochs: 4, start: Timestamp(seconds: NMEALog.defaultStart.seconds + 30)), format: "csv", path: path)
            #expect(first.recorded.status == .exited(69) && second.recorded.status == .exited(69), "\(first.recorded) \(second.recorded)")
            let rows: [String] = try #require(TrackFiles.text(path)).components(separatedBy: "\r\n")
            let firstRows: [String] = Array(first.printed.components(separatedBy: "\r\n").dropLast())
            let secondRows: [String] = Array(second.printed.components(separatedBy: "\r\n").dropLast().dropFirst())
            let expected: [String] = firstRows + secondRows + [""]
            #expect(rows == expected)
            #expect(rows.filter { $0.hasPrefix("time,") }.count == 1)
            #expect(rows.count == 12, "a header, 6 and 4 rows, and the empty string after the last CRLF")
        }

        @Test("given a track across a UTC midnight and --output with date fields when recorded then each day has its file, in folders made for it, with its own fixes", .timeLimit(.minutes(1)))
        func rotationAtMidnight() async throws {
            let folder = try TrackFiles.temporaryFolder("rotate")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // 2026-03-01T23:59:57Z: three fixes on the 1st, three on the 2nd.
            let log = NMEALog.walk(epochs: 6, start: Timestamp(seconds: 1_772_409_597))
            let result = try await record(log, format: "json", path: folder + "/%Y/%m/%d.json")
            #expect(result.recorded.status == .exited(69), "\(result.recorded)")
            let printed = result.printed.completeLines
            #expect(printed.count == 6)
            #expect(TrackFiles.text(folder + "/2026/03/01.json")?.completeLines == Array(printed[0..<3]))
            #expect(TrackFiles.text(folder + "/2026/03/02.json")?.completeLines == Array(printed[3..<6]))
        }

        @Test("given --output in a folder that cannot be made when recording then one line and exit 74", .timeLimit(.minutes(1)))
        func folderCannotBeMade() async throws {
            let folder = try TrackFiles.temporaryFolder("nofolder")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            _ = FileManager.default.createFile(atPath: folder + "/plain-file", contents: Data("x".utf8))
            let result = try await record(NMEALog.walk(epochs: 3), format: "gpx", path: folder + "/plain-file/tracks/t.gpx")
            #expect(result.recorded.status == .exited(74), "\(result.recorded)")
            #expect(Self.writerLines(result.recorded) == ["loctrack: cannot create the folder \(folder)/plain-file/tracks: Not a directory"],
                    "\(result.recorded)")
        }

        @Test("given a full disk (a 32 KiB tmpfs) when recording GPX and CSV then one line, exit 74, and each file is still whole",
              .enabled(if: TrackFiles.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN"), .timeLimit(.minutes(2)))
        func fullDisk() async throws {
            let folder = try TrackFiles.temporaryFolder("full")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try #require(TrackFiles.mountCommand("mount", ["-t", "tmpfs", "-o", "size=32k", "tmpfs", folder]))
            defer { TrackFiles.mountCommand("umount", [folder]) }
            // About 200 bytes a GPX point and 130 a CSV row: 320 of either cannot fit in 32 KiB.
            let log = NMEALog.walk(epochs: 320, sentences: [.rmc, .gga])
            for format in ["gpx", "csv"] {
                let path = "\(folder)/track.\(format)"
                let result = try await record(log, format: format, path: path)
                #expect(result.recorded.status == .exited(74), "\(format): \(result.recorded)")
                #expect(Self.writerLines(result.recorded) == ["loctrack: cannot write \(path): No space left on device"],
                        "\(format): \(result.recorded)")
                let text = try #require(TrackFiles.text(path))
                if format == "gpx" {
                    #expect(TrackFiles.isWellFormedXML(text), "the GPX file is whole")
                    let points = TrackFiles.points(text)
                    #expect(points.count > 10 && points.count < 320)
                    #expect(points == Array(TrackFiles.points(result.printed).prefix(points.count)))
                } else {
                    let rows: [String] = text.components(separatedBy: "\r\n")
                    #expect(rows.last == "", "the CSV file ends with a whole row")
                    #expect(rows.count > 10 && rows.count < 322)
                    let printedRows: [String] = result.printed.components(separatedBy: "\r\n")
                    let written: [String] = Array(rows.dropLast())
                    #expect(written == Array(printedRows.prefix(written.count)))
                }
                try? FileManager.default.removeItem(atPath: path)
            }
        }

        @Test("given a read-only folder (a read-only tmpfs) when recording then one line and exit 74",
              .enabled(if: TrackFiles.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN"), .timeLimit(.minutes(1)))
        func readOnlyFolder() async throws {
            let folder = try TrackFiles.temporaryFolder("readonly")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try #require(TrackFiles.mountCommand("mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", folder]))
            defer { TrackFiles.mountCommand("umount", [folder]) }
            let result = try await record(NMEALog.walk(epochs: 3), format: "json", path: folder + "/t.json")
            #expect(result.recorded.status == .exited(74), "\(result.recorded)")
            #expect(Self.writerLines(result.recorded) == ["loctrack: cannot open \(folder)/t.json: Read-only file system"], "\(result.recorded)")
        }

        @Test("given a 100 m circle and monitor run --output with a date field when a track passes through it then the file holds the EVENT lines stdout would get", .timeLimit(.minutes(1)))
        func monitorEventsRecorded() async throws {
            let home = try StateHome()
            let folder = try TrackFiles.temporaryFolder("monitor")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let log = MonitorTracks.log((0...60).map { (north: -300 + 10 * Double($0), east: 0) }, hdop: 0.5)
            let added = try await home.loctrack(["monitor", "add", "c", "--circle", MonitorTracks.circleArgument(radius: 100)])
            #expect(added.status == .exited(0), "\(added)")
            let path = folder + "/events/%Y-%m-%d.json"
            let result: LoctrackResult = try await withGPSFake(log) { fake in
                return try await fake.run(["monitor", "run", "--format", "json", "--no-reconnect", "--output", path], start: home.start)
            }
            #expect(result.status == .exited(69), "\(result)")
            #expect(result.stdout.isEmpty)
            let file = try #require(TrackFiles.text(folder + "/events/\(String(log.start.iso8601.prefix(10))).json"))
            let states = file.completeLines.map { $0.contains("\"state\":\"satisfied\"") ? "satisfied" : "unsatisfied" }
            // As on stdout (MonitorEndToEnd.passStraightThrough): outside, inside at epoch 21, outside at 42.
            #expect(states == ["unsatisfied", "satisfied", "unsatisfied"], "\(file)")
            #expect(file.completeLines.allSatisfy { $0.hasPrefix("{\"class\":\"EVENT\"") })
        }
    }
}
