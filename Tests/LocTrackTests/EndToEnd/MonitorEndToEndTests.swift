import Foundation
import Glibc
@testable import LocTrack
@testable import LocTrackMonitor
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// `loctrack monitor` against a real gpsd fed by gpsfake, with tracks generated here
    /// (``MonitorTracks``): each test's expected events are derived by hand from the rules
    /// in docs/monitor.md, and checked line by line.
    @Suite("Monitor: geofences against gpsd", .serialized, .timeLimit(.minutes(2)))
    struct MonitorEndToEnd {
        typealias T = MonitorTracks

        /// (id, state, epoch index, accuracyLimited) of each EVENT line.
        private func events(_ result: LoctrackResult, log: NMEALog) throws -> [String] {
            try result.jsonObjects().map { line in
                let time = (line["time"] as? String).flatMap { Timestamp(iso8601: $0) }
                let epoch = time.map { Int($0.seconds - log.start.seconds) }.map(String.init) ?? "-"
                let limited = line["accuracyLimited"] as? Bool == true ? " limited" : ""
                return "\(line["id"] as? String ?? "?") \(line["state"] as? String ?? "?") @\(epoch)\(limited)"
            }
        }

        @Test("given a 100 m circle when a track passes straight through it then the first decision, one enter and one exit come at the epochs the rules give", .timeLimit(.minutes(1)))
        func passStraightThrough() async throws {
            let home = try StateHome()
            // South to north through the centre, 10 m per epoch, eph 9.5 m (HDOP 0.5).
            let log = T.log((0...60).map { (north: -300 + 10 * Double($0), east: 0) }, hdop: 0.5)
            let added = try await home.loctrack(["monitor", "add", "c", "--circle", T.circleArgument(radius: 100)])
            #expect(added.status == .exited(0) && added.stderr.isEmpty, "\(added)")
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["monitor", "run", "--format", "json", "--no-reconnect"], start: home.start)
                // Outside at once; inside when 100 − 9.5 m from the centre (north −90, epoch 21);
                // outside when 100 + 9.5 + 10 m (north 120, epoch 42).
                #expect(try events(result, log: log) == ["c unsatisfied @0", "c satisfied @21", "c unsatisfied @42"], "\(result)")
                let lines = try result.jsonObjects()
                let fixes = T.expectedFixes(log)
                #expect(lines[1]["class"] as? String == "EVENT")
                #expect(lines[1]["monitor"] as? String == "default")
                #expect(lines[1]["lat"] as? Double == fixes[21].latitude)
                #expect(lines[1]["lon"] as? Double == fixes[21].longitude)
                #expect(lines[1]["eph"] as? Double == 9.5)
                #expect(result.status == .exited(69), "--no-reconnect at the end of the log: \(result)")
                let schemaProblems = try Parsers.schemaProblems(result.stdout, schema: "event.schema.json")
                #expect(schemaProblems.isEmpty, "docs/event.schema.json: \(schemaProblems)")
            }
            let list = try await home.loctrack(["monitor", "list", "--format", "json"])
            let records = try list.jsonObjects()
            #expect(records.count == 1)
            #expect(records.first?["state"] as? String == "unsatisfied", "\(list)")
            #expect((records.first?["lastEvent"] as? [String: Any])?["time"] as? String == log.time(ofEpoch: 42).iso8601)
        }

        @Test("given a receiver standing on a circle's boundary for ten minutes with ±15 m of jitter when monitored then it decides once and never flaps", .timeLimit(.minutes(2)))
        func standingOnTheBoundary() async throws {
            let home = try StateHome()
            var generator = SplitMix64(seed: 2189)  // Traccar's flapping issue
            let positions = (0..<600).map { _ in
                (north: 200 + generator.uniform(-15, 15), east: generator.uniform(-15, 15))
            }
            let log = T.log(positions, hdop: 0.3)  // eph 5.7 m: optimistic for ±15 m, the hard case
            _ = try await home.loctrack(["monitor", "add", "edge", "--circle", T.circleArgument(radius: 200)])
            try await withGPSFake(log, cycle: .milliseconds(1)) { fake in
                let result = try await fake.run(["monitor", "run", "--format", "json", "--no-reconnect"], endTimeout: .seconds(60), start: home.start)
                // Satisfied needs the fix 5.7 m inside; unsatisfied 5.7 + 20 m outside, which
                // ±15 m never reaches: one decision, then nothing for ten minutes.
                var engine = GeofenceEngine(snapshot: {
                    var snapshot = MonitorSnapshot(name: "default")
                    snapshot.add(try! .circle(center: T.origin, radius: 200), identifier: "edge", assuming: .unknown)
                    return snapshot
                }())
                let expected = T.expectedFixes(log).flatMap { engine.process($0) }
                #expect(expected.count == 1)
                #expect(try events(result, log: log) == expected.map {
                    "edge \($0.state) @\($0.time!.seconds - log.start.seconds)"
                }, "\(result)")
                #expect(try result.jsonObjects().count == 1, "\(result)")
            }
        }

        @Test("given a fence smaller than the fixes' error circle when monitored then nothing is decided and accuracyLimited is reported once", .timeLimit(.minutes(1)))
        func fenceSmallerThanTheAccuracy() async throws {
            let home = try StateHome()
            let log = T.log(Array(repeating: (north: 0, east: 0), count: 20), hdop: 1.0)  // eph 19 m
            _ = try await home.loctrack(["monitor", "add", "tiny", "--circle", T.circleArgument(radius: 8)])
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["monitor", "run", "--format", "json", "--no-reconnect"], start: home.start)
                #expect(try events(result, log: log) == ["tiny unknown @0 limited"], "\(result)")
            }
            let list = try await home.loctrack(["monitor", "list", "--format", "json"])
            #expect(try list.jsonObjects().first?["state"] as? String == "unknown", "\(list)")
        }

        @Test("given a monitor SIGKILLed inside a fence when it is restarted and the track leaves then the enter is not repeated and the exit comes once", .timeLimit(.minutes(1)))
        func sigkillInsideAndRestart() async throws {
            let home = try StateHome()
            _ = try await home.loctrack(["monitor", "add", "c", "--circle", T.circleArgument(radius: 100)])
            // Run 1: approach from 300 m south in 20 m steps, then stand at the centre.
            let approach = T.log((0..<26).map { (north: min(-300 + 20 * Double($0), 0), east: 0) }, hdop: 0.5)
            try await withGPSFake(approach) { fake in
                let run = try home.start(["monitor", "run", "--format", "json", fake.sourceArgument])
                try await fake.waitForWatchers()
                fake.feedAll()
                try await run.waitForStdoutLines(2)
                // The rest of the track: inside; and the delivery of the enter is saved
                // (within two seconds of a quiet monitor), so the next run does not repeat it.
                try await Task.sleep(for: .milliseconds(2500))
                run.signal(SIGKILL)
                let result = try await run.result()
                #expect(result.status == .signaled(SIGKILL))
                // Inside when north ≥ −90.5: north −80, epoch 11.
                #expect(try events(result, log: approach) == ["c unsatisfied @0", "c satisfied @11"], "\(result)")
            }
            let state = try String(contentsOfFile: home.stateFile(), encoding: .utf8)
            #expect(state.contains(#""state":"satisfied""#), "\(state)")
            // Run 2, later: stand at the centre, then leave north in 20 m steps.
            let leave = T.log((0..<25).map { (north: max(20 * Double($0) - 100, 0), east: 0) }, hdop: 0.5,
                              start: Timestamp(seconds: NMEALog.defaultStart.seconds + 100))
            try await withGPSFake(leave) { fake in
                let result = try await fake.run(["monitor", "run", "--format", "json", "--no-reconnect"], start: home.start)
                // Outside when north ≥ 119.5: north 120 at epoch 11.
                #expect(try events(result, log: leave) == ["c unsatisfied @11"], "\(result)")
            }
        }

        @Test("given a concave U polygon from GeoJSON when a track crosses both arms then it enters and leaves twice, in json and as OwnTracks transitions", .timeLimit(.minutes(1)))
        func concavePolygonCrossedTwice() async throws {
            let home = try StateHome()
            let u = [(0.0, 0.0), (300, 0), (300, 100), (100, 100), (100, 200), (300, 200), (300, 300), (0, 300)]
            let file = try home.file("u.geojson", T.polygonFeature(id: "u", corners: u))
            for name in ["default", "ot"] {
                let added = try await home.loctrack(["monitor", "add", "--geojson", file, "--name", name, "--assume", "outside"])
                #expect(added.status == .exited(0), "\(added)")
            }
            let addedAt = Int64(Date().timeIntervalSince1970)
            // West to east through both arms, 250 m north, 10 m per epoch, eph 9.5 m.
            let log = T.log((0...42).map { (north: 250, east: -60 + 10 * Double($0)) }, hdop: 0.5)
            try await withGPSFake(log) { fake in
                let results = try await fake.run(
                    [["monitor", "run", "--format", "json", "--no-reconnect"], ["monitor", "run", "--name", "ot", "--format", "owntracks", "--no-reconnect"]],
                    start: home.start)
                let (result, transitions) = (results[0], results[1])
                // Size √(70,000 m²/π) = 149 m, margin 14.9 m. In: 9.5 m past the west edge of
                // each arm (east 10, 210); out: 24.4 m past its east edge (east 130, 330).
                #expect(try events(result, log: log) == ["u satisfied @7", "u unsatisfied @19", "u satisfied @27", "u unsatisfied @39"], "\(result)")
                let messages = try transitions.jsonObjects()
                #expect(messages.map { $0["event"] as? String } == ["enter", "leave", "enter", "leave"], "\(transitions)")
                let fixes = T.expectedFixes(log)
                for (message, epoch) in zip(messages, [7, 19, 27, 39]) {
                    #expect(message["_type"] as? String == "transition")
                    #expect(message["desc"] as? String == "u")
                    #expect((message["tst"] as? NSNumber)?.int64Value == log.time(ofEpoch: epoch).seconds)
                    #expect(((message["wtst"] as? NSNumber)?.int64Value).map { abs($0 - addedAt) <= 5 } == true, "\(message)")
                    #expect(message["acc"] as? Int == 10)  // 9.5 m rounded
                    #expect(message["t"] as? String == "c")
                    #expect(abs((message["lat"] as? Double ?? 0) - fixes[epoch].latitude) < 1e-7)
                    #expect(abs((message["lon"] as? Double ?? 0) - fixes[epoch].longitude) < 1e-7)
                }
            }
        }

        @Test("given a running monitor when two processes add ten conditions each and then one is removed then no write is lost, each new condition is decided, and the removal arrives within 2 s", .timeLimit(.minutes(2)))
        func addingWhileRunning() async throws {
            let home = try StateHome()
            _ = try await home.loctrack(["monitor", "add", "base", "--circle", T.circleArgument(radius: 200)])
            let log = T.log(Array(repeating: (north: 0, east: 0), count: 150), hdop: 0.5)
            try await withGPSFake(log) { fake in
                let run = try home.start(["monitor", "run", "--format", "json", fake.sourceArgument])
                try await fake.waitForWatchers()
                // gpsd at 5 Hz from here on, for as long as the test runs.
                let feeding = Task {
                    while !Task.isCancelled {
                        fake.feed(epochs: 1)
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                }
                defer { feeding.cancel() }
                try await run.waitForStdoutLines(1)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in ["a", "b"] {
                        group.addTask {
                            for index in 0..<10 {
                                let added = try await home.loctrack(["monitor", "add", "\(writer)\(index)", "--circle", T.circleArgument(radius: 150)])
                                #expect(added.status == .exited(0), "\(added)")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let list = try await home.loctrack(["monitor", "list", "--format", "json"])
                let ids = Set(try list.jsonObjects().compactMap { $0["id"] as? String })
                #expect(ids == Set(["base"] + (0..<10).flatMap { ["a\($0)", "b\($0)"] }), "\(list)")
                try await run.waitForStdoutLines(21, timeout: .seconds(10))
                let removedAt = ContinuousClock.now
                let removed = try await home.loctrack(["monitor", "remove", "a3"])
                #expect(removed.status == .exited(0), "\(removed)")
                try await run.waitForStdoutLines(22, timeout: .seconds(10))
                let delay = ContinuousClock.now - removedAt
                #expect(delay < .seconds(2.5), "the removal took \(delay) to reach the running monitor")
                run.signal(SIGINT)
                let result = try await run.result()
                #expect(result.status == .exited(0), "\(result)")
                let lines = try result.jsonObjects()
                #expect(lines.count == 22, "\(result)")
                #expect(Set(lines[1..<21].compactMap { $0["id"] as? String }) == ids.subtracting(["base"]))
                #expect(lines[1..<21].allSatisfy { $0["state"] as? String == "satisfied" })
                #expect(lines.last?["id"] as? String == "a3")
                #expect(lines.last?["state"] as? String == "unmonitored")
                #expect(lines.last?["time"] == nil)
            }
        }

        @Test("given a second monitor run of the same name when started then it exits 75 at once with one line")
        func oneRunnerPerMonitor() async throws {
            let home = try StateHome()
            _ = try await home.loctrack(["monitor", "add", "c", "--circle", "1,2,50"])
            // No gpsd at all: the first run waits for it, holding the monitor.
            let first = try home.start(["monitor", "run", "127.0.0.1:1"])
            defer { first.signal(SIGKILL) }
            try await waitUntil(timeout: .seconds(10), "the first run to hold its lock") {
                FileManager.default.fileExists(atPath: "\(home.path)/loctrack/default.monitor.run")
            }
            try await Task.sleep(for: .milliseconds(200))
            let second = try await home.loctrack(["monitor", "run", "127.0.0.1:1"])
            #expect(second.status == .exited(75), "\(second)")
            #expect(second.stderrLines.count == 1 && second.stderr.contains("already running"), "\(second)")
        }
    }
}
