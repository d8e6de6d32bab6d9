import Foundation
import Glibc
@testable import LocTrack
@testable import LocTrackMonitor
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// `monitor run`'s events delivered at least once, to every sink, against a real gpsd
    /// (gpsfake) and a real mosquitto: removals made elsewhere while gpsd is silent, and a
    /// monitor SIGKILLed again and again along a track that crosses two regions twice.
    @Suite("Monitor delivery: every event at least once, to every sink", .serialized, .timeLimit(.minutes(2)), .enabled(if: Mosquitto.isAvailable, "needs mosquitto and mosquitto-clients"))
    struct MonitorDelivery {
        typealias T = MonitorTracks

        @Test("given a running monitor inside a region and a silent gpsd when another process removes the region then the removal arrives within 2 s, as unmonitored after satisfied and as an OwnTracks leave", .timeLimit(.minutes(1)), arguments: ["json", "owntracks"])
        func removalWhileSilent(format: String) async throws {
            let home = try StateHome()
            _ = try await home.loctrack(["monitor", "add", "c", "--circle", T.circleArgument(radius: 100)])
            let log = T.log((0..<5).map { _ in (north: 0, east: 0) }, hdop: 0.5)
            try await withGPSFake(log) { fake in
                let run = try home.start(["monitor", "run", "--format", format, fake.sourceArgument])
                try await fake.waitForWatchers()
                fake.feedAll()
                try await run.waitForStdoutLines(1)
                try await Task.sleep(for: .milliseconds(500))  // gpsd is silent from here on
                let removed = try await home.loctrack(["monitor", "remove", "c"])
                #expect(removed.status == .exited(0), "\(removed)")
                let start = ContinuousClock.now
                try await run.waitForStdoutLines(2, timeout: .seconds(5))
                let took = ContinuousClock.now - start
                run.signal(SIGINT)
                let result = try await run.result()
                #expect(took < .seconds(2), "the removal took \(took)")
                let lines = try result.jsonObjects()
                if format == "json" {
                    #expect(lines.map { "\($0["id"] ?? "") \($0["previous"] ?? "")->\($0["state"] ?? "")" }
                        == ["c unknown->satisfied", "c satisfied->unmonitored"], "\(result)")
                } else {
                    #expect(lines.map { "\($0["event"] ?? "") \($0["desc"] ?? "")" } == ["enter c", "leave c"], "\(result)")
                    let fix = try #require(T.expectedFixes(log).last)
                    #expect(lines.last?["lat"] as? Double == (fix.latitude * 1e7).rounded() / 1e7, "the leave is at the last position")
                }
            }
        }

        /// How many times the monitor is killed: `LOCTRACK_MONITOR_KILLS`, 12 by default
        /// (`make kills` runs 200).
        static var kills: Int { ProcessInfo.processInfo.environment["LOCTRACK_MONITOR_KILLS"].flatMap(Int.init) ?? 12 }

        @Test("given a monitor with --publish and --output SIGKILLed at random moments along a track through two regions when restarted each time then every sink gets every transition in order, at least once, each enter with its leave", .timeLimit(.minutes(2)))
        func killedAgainAndAgain() async throws {
            let home = try StateHome()
            _ = try await home.loctrack(["monitor", "add", "a", "--circle", T.circleArgument(radius: 100)])
            _ = try await home.loctrack(["monitor", "add", "b", "--circle", T.circleArgument(radius: 100, north: 600)])
            // North from −300 m to 900 m and back, 20 m an epoch: through a and b, twice each;
            // one lap per 40 kills, so that every run has a few epochs.
            let out = (0...60).map { (north: -300 + 20 * Double($0), east: 0.0) }
            let lap = out + out.reversed().dropFirst(), laps = max(1, Self.kills / 40)
            let log = T.log((0..<laps).flatMap { lapIndex in lapIndex == 0 ? lap : Array(lap.dropFirst()) }, hdop: 0.5)
            let run = try PublishRun("monitor-kills")
            let file = "\(home.path)/events.json"
            var generator = SplitMix64(seed: 2026)
            try await withMosquitto { broker in
                let subscriber = try await broker.subscribe(topic: "van/event", clientID: subscriberID("kills"))
                // gpsd reads the device with no client too, so nothing is lost between runs.
                try await withGPSFake(log, options: GPSFake.Options(readsWithoutClients: true)) { fake in
                    try await fake.waitForWatchers(0)
                    let arguments = [
                        "monitor", "run", "--format", "json", "--output", file, "--publish", broker.url(topic: "van"),
                        "--client-id", run.clientID, "--spool", run.spool,
                    ]
                    var fed = 0
                    for attempt in 0..<Self.kills {
                        let monitor = try home.start(arguments + [fake.sourceArgument])
                        try await fake.waitForWatchRequests(attempt + 1, by: monitor)
                        // The whole track over the runs: about epochs ÷ kills an attempt, and at least
                        // 2 (gpsd's reports of an epoch make a fix once the next epoch begins). The
                        // kill comes 0–100 ms after gpsd sent the last of them: while the monitor
                        // decides, saves, delivers or confirms (killed before it has a fix, the track
                        // would pass by unseen; after the first, on a busy machine it sometimes did).
                        let spread = UInt64(max(1, 2 * log.epochs.count / Self.kills - 3))
                        let epochs = 2 + Int(generator.next() % spread)
                        fed = min(fed + epochs, log.epochs.count)
                        let last = #""time":"\#(log.time(ofEpoch: fed - 1).iso8601)""#
                        fake.feed(epochs: epochs)
                        try await waitUntil(timeout: .seconds(10), "gpsd to send the fed epochs, the last at \(last)") {
                            fake.gpsdLog.contains { $0.contains("=> client(") && $0.contains(#""class":"TPV""#) && $0.contains(last) }
                        }
                        try await Task.sleep(for: .milliseconds(Int(generator.next() % 100)))
                        monitor.signal(SIGKILL)
                        let result = try await monitor.result()
                        #expect(result.status == .signaled(SIGKILL), "\(result)")
                        #expect(result.stdout.isEmpty, "with sinks, nothing on stdout: \(result)")
                    }
                    let last = try home.start(arguments + ["--no-reconnect", fake.sourceArgument])
                    try await fake.waitForWatchRequests(Self.kills + 1, by: last)
                    try await fake.endLogs()
                    let result = try await last.result()
                    #expect(result.status == .exited(69), "\(result)")
                }
                let final = try MonitorStore(name: "default", directory: "\(home.path)/loctrack").read()
                let finalStates = Dictionary(uniqueKeysWithValues: final.conditions.map { ($0.identifier, $0.state.rawValue) })
                #expect(final.outbox.isEmpty, "the last run confirmed everything: \(final.outbox)")
                let fileLines = (TrackFiles.text(file) ?? "").split(separator: "\n").map(String.init)
                let fileEvents = try Self.transitions(fileLines, finalStates: finalStates, sink: "--output")
                try await subscriber.waitForMessages(timeout: .seconds(20), "every transition") { messages in
                    (try? Self.transitions(messages.map(\.payload), finalStates: finalStates, sink: "broker")) == fileEvents
                }
                let brokerEvents = try Self.transitions(subscriber.payloads(on: "van/event"), finalStates: finalStates, sink: "broker")
                #expect(brokerEvents == fileEvents)
                for id in ["a", "b"] {
                    let enters = fileEvents.filter { $0.hasPrefix("\(id) ") && $0.contains("->satisfied") }.count
                    let leaves = fileEvents.filter { $0.hasPrefix("\(id) satisfied->") }.count
                    #expect(enters >= 1, "\(id) was entered: \(fileEvents)")
                    #expect(leaves == enters, "each enter of \(id) has its leave: \(fileEvents)")
                }
                print("monitor killed \(Self.kills) times: \(fileEvents.count) transitions; \(fileLines.count) lines in the file, "
                    + "\(subscriber.messages.count) messages at the broker (the rest are repeats around the kills)")
            }
        }

        /// A sink's EVENT lines as `id previous->state @time`, repeats (the same event
        /// delivered again after a crash) removed, checked: per region each event's
        /// previous state is the state of the one before it (no event lost), and the last
        /// is the state the state file holds.
        static func transitions(_ lines: [String], finalStates: [String: String], sink: String) throws -> [String] {
            var seen = Set<String>(), events: [String] = [], states: [String: String] = [:]
            for line in lines {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let id = object["id"] as? String, let state = object["state"] as? String,
                      let previous = object["previous"] as? String else { throw HarnessError("\(sink): not an EVENT line: \(line)") }
                let event = "\(id) \(previous)->\(state) @\(object["time"] as? String ?? "-")"
                guard seen.insert(event).inserted else { continue }
                guard previous == states[id] ?? "unknown" else {
                    throw HarnessError("\(sink): \(event) follows \(states[id] ?? "nothing"): an event was lost; so far \(events)")
                }
                states[id] = state
                events.append(event)
            }
            guard states == finalStates else { throw HarnessError("\(sink): ends in \(states), the state file in \(finalStates)") }
            return events
        }
    }
}
