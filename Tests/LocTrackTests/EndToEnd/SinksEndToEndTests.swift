import Foundation
import Glibc
import LocTrack
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// Several sinks in one `stream`: track files and brokers at once, against a real gpsd
    /// (gpsfake) and real mosquitto brokers. What each sink must hold is what a plain
    /// `stream` on the same gpsd prints in that sink's format.
    @Suite("Sinks: stream with --output and --publish at once", .serialized, .timeLimit(.minutes(2)), .enabled(if: Mosquitto.isAvailable, "needs mosquitto and mosquitto-clients"))
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

        /// How many times `stream` is killed: `LOCTRACK_RECORD_KILLS`, 10 by default (`make
        /// kills` runs 100).
        static var kills: Int { ProcessInfo.processInfo.environment["LOCTRACK_RECORD_KILLS"].flatMap(Int.init) ?? 10 }

        @Test("given stream recording a GPX and a JSON file and publishing when SIGKILLed at random moments of a flood and restarted each time then every file is whole and every fix in them reached the broker", .timeLimit(.minutes(2)))
        func killedWhileRecordingAndPublishing() async throws {
            let folder = try TrackFiles.temporaryFolder("sinks-kills")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let run = try PublishRun("sinks-kills")
            let log = NMEALog.walk(epochs: 40 * Self.kills)
            var generator = SplitMix64(seed: 1848)
            try await withMosquitto { broker in
                let subscriber = try await broker.subscribe(topic: "van", clientID: subscriberID("sinks-kills"))
                try await withGPSFake(log, cycle: .zero, options: GPSFake.Options(readsWithoutClients: true)) { fake in
                    try await fake.waitForWatchers(0)
                    let arguments = [
                        "stream", "--output", folder + "/t.gpx", "--output", folder + "/t.json",
                        "--publish", broker.url(topic: "van"), "--client-id", run.clientID, "--spool", run.spool,
                    ]
                    for attempt in 0..<Self.kills {
                        let stream = try LoctrackProcess.start(arguments + [fake.sourceArgument])
                        try await fake.waitForWatchRequests(attempt + 1, by: stream)
                        // 0 to 79 epochs at once (a flood), killed 0 to 50 ms later.
                        fake.feed(epochs: Int(generator.next() % 80))
                        try await Task.sleep(for: .milliseconds(Int(generator.next() % 50)))
                        stream.signal(SIGKILL)
                        let result = try await stream.result()
                        #expect(result.status == .signaled(SIGKILL), "\(result)")
                    }
                    let last = try LoctrackProcess.start(arguments + ["--no-reconnect", fake.sourceArgument])
                    try await fake.waitForWatchRequests(Self.kills + 1, by: last)
                    try await fake.endLogs()
                    #expect(try await last.result().status == .exited(69))
                }
                let gpx = try #require(TrackFiles.text(folder + "/t.gpx"))
                #expect(TrackFiles.isWellFormedXML(gpx), "the GPX file is whole")
                let lines = (TrackFiles.text(folder + "/t.json") ?? "").split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.last == "", "the JSON file ends with a whole line")
                let recorded = lines.dropLast().map(String.init)
                let times = try recorded.map { line in
                    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["time"] as? String ?? ""
                }
                #expect(times == times.sorted() && Set(times).count == times.count, "each fix recorded once, in order")
                let gpxTimes = TrackFiles.points(gpx).compactMap { point in
                    point.range(of: "<time>").flatMap { start in
                        point[start.upperBound...].range(of: "</time>").map { String(point[start.upperBound..<$0.lowerBound]) }
                    }
                }
                #expect(gpxTimes.count == TrackFiles.points(gpx).count && gpxTimes == gpxTimes.sorted())
                // Every recorded fix reached the broker (the spool resends after each restart).
                try await subscriber.waitForMessages(timeout: .seconds(30), "every recorded fix") { messages in
                    Set(recorded).isSubset(of: Set(messages.map(\.payload)))
                }
                let published = Set(subscriber.payloads(on: "van"))
                #expect(Set(recorded).isSubset(of: published))
                let publishedTimes = Set(try published.map { line in
                    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["time"] as? String ?? ""
                })
                #expect(Set(gpxTimes).isSubset(of: publishedTimes), "every fix in the GPX file reached the broker")
                print("stream killed \(Self.kills) times: \(gpxTimes.count) fixes in the GPX file, \(recorded.count) in the JSON file, \(published.count) distinct at the broker "
                    + "(\(subscriber.messages.count) messages with repeats), of \(log.epochs.count) fed")
            }
        }
    }
}
