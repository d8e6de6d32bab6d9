import Foundation
import Glibc
import LocTrack
import Testing

extension EndToEndTests {
    /// Several sinks in one `stream`: track files and brokers at once, against a real gpsd
    /// (gpsfake) and real mosquitto brokers. What each sink must hold is what a plain
    /// `stream` on the same gpsd prints in that sink's format.
    @Suite("Sinks: stream with --output and --publish at once", .enabled(if: Mosquitto.isAvailable, "needs mosquitto and mosquitto-clients"))
    struct Sinks {
        @Test("given two brokers and a GPX and a CSV file when streaming then every sink gets every fix in its own format, and stdout stays empty", .timeLimit(.minutes(1)))
        func everySinkGetsEveryFix() async throws {
            let folder = try TrackFiles.temporaryFolder("sinks")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let home = try PublishRun("sinks-home"), fleet = try PublishRun("sinks-fleet")
            try await withMosquitto { homeBroker in
                try await withMosquitto { fleetBroker in
                    let homeSubscriber = try await homeBroker.subscribe(topic: "van", clientID: subscriberID("home"))
                    let fleetSubscriber = try await fleetBroker.subscribe(topic: "vans/7", clientID: subscriberID("fleet"))
                    try await withGPSFake(NMEALog.walk(epochs: 12)) { fake in
                        let recorder = try LoctrackProcess.start([
                            "stream", "--no-reconnect", "--output", folder + "/%F.gpx", "-o", folder + "/%F.csv",
                            "--publish", homeBroker.url(topic: "van"), "--client-id", home.clientID, "--spool", home.spool,
                            "--publish", fleetBroker.url(topic: "vans/7"), "--client-id", fleet.clientID, "--spool", fleet.spool,
                            fake.sourceArgument,
                        ])
                        let plain = ["json", "gpx", "csv"].map { format in
                            (format, try? LoctrackProcess.start(["stream", "--no-reconnect", "--format", format, fake.sourceArgument]))
                        }
                        try await fake.waitForWatchers(4)
                        try await fake.endLogs()
                        let result = try await recorder.result()
                        var printed: [String: String] = [:]
                        for (format, process) in plain { printed[format] = try await #require(process).result().stdout }

                        #expect(result.status == .exited(69), "gpsd's end with --no-reconnect: \(result)")
                        #expect(result.stdout.isEmpty, "\(result)")
                        let day = "2026-03-01"  // NMEALog's default start
                        let gpx = try #require(TrackFiles.text("\(folder)/\(day).gpx"), "files: \(TrackFiles.list(folder))")
                        #expect(gpx == printed["gpx"], "the GPX file is stdout's document")
                        #expect(TrackFiles.points(gpx).count == 12)
                        #expect(TrackFiles.text("\(folder)/\(day).csv") == printed["csv"], "the CSV file is stdout's")
                        let lines = try #require(printed["json"]).completeLines
                        #expect(lines.count == 12)
                        try await homeSubscriber.waitForMessages(count: 12)
                        try await fleetSubscriber.waitForMessages(count: 12)
                        #expect(homeSubscriber.payloads(on: "van") == lines, "\(homeSubscriber.report)")
                        #expect(fleetSubscriber.payloads(on: "vans/7") == lines, "\(fleetSubscriber.report)")
                    }
                }
            }
        }

        @Test("given a broker that is down when streaming to it and to a file then the file gets every fix at once and the spool keeps them", .timeLimit(.minutes(1)))
        func brokerDownDelaysNoFile() async throws {
            let folder = try TrackFiles.temporaryFolder("sinks-down")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let run = try PublishRun("sinks-down")
            // A port nothing listens on: bound, then closed again.
            let (listener, closedPort) = try Loopback.listen()
            close(listener)
            try await withGPSFake(NMEALog.walk(epochs: 10)) { fake in
                let recorder = try LoctrackProcess.start([
                    "stream", "--no-reconnect", "--output", folder + "/track.json",
                    "--publish", "mqtt://127.0.0.1:\(closedPort)/t", "--client-id", run.clientID, "--spool", run.spool,
                    fake.sourceArgument,
                ])
                let plain = try LoctrackProcess.start(["stream", "--no-reconnect", "--format", "json", fake.sourceArgument])
                try await fake.waitForWatchers(2)
                try await fake.endLogs()
                let result = try await recorder.result()
                let printed = try await plain.result().stdout

                #expect(result.status == .exited(69), "\(result)")
                #expect(TrackFiles.text(folder + "/track.json") == printed)
                #expect(result.stderrLines.contains { $0.contains("10 messages are left in the spool") }, "\(result)")
                #expect(result.duration < .seconds(10), "an unreachable broker holds nothing up: \(result)")
            }
        }

        @Test("given two --publish that would share the default spool when stream starts then it exits 64 with one line before writing anything", .timeLimit(.minutes(1)))
        func sharedDefaultSpoolRefused() async throws {
            let home = try StateHome()
            let folder = try TrackFiles.temporaryFolder("sinks-usage")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let result = try await LoctrackProcess.run(
                ["stream", "--output", folder + "/t.json", "--publish", "mqtt://127.0.0.1:1/a", "--publish", "mqtt://127.0.0.2:1/b"],
                environment: ["XDG_STATE_HOME": home.path])
            #expect(result.status == .exited(64), "\(result)")
            #expect(result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.contains("two --publish use the spool \(home.path)/loctrack/spool/"), "\(result)")
            #expect(TrackFiles.list(folder).isEmpty, "nothing written: \(TrackFiles.list(folder))")
        }
    }
}
