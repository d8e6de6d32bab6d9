import Foundation
import Glibc
@testable import LocTrack
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// `--publish` with a login, TLS, OwnTracks payloads and its last will, and
    /// `monitor run --publish`: a real gpsd (gpsfake) and a real mosquitto broker.
    @Suite("Publish: logins, TLS, OwnTracks and monitor run --publish", .serialized, .enabled(if: Mosquitto.isAvailable, "needs mosquitto and mosquitto-clients"), .timeLimit(.minutes(1)))
    struct PublishOptionsEndToEnd {
        // MARK: Logins

        @Test("given a broker with a password file when stream --publish logs in with a wrong password then it exits 69 within a few seconds with one stderr line and publishes nothing", .timeLimit(.minutes(1)))
        func wrongPasswordExits69() async throws {
            let run = try PublishRun("wrong")
            try await withMosquitto(Mosquitto.Options(users: ["alice": "s3cret"])) { broker in
                try await withGPSFake(NMEALog.walk(epochs: 5)) { fake in
                    let publisher = try run.startStream(
                        broker.url(topic: "loctrack/auth", user: "alice"), source: fake.sourceArgument,
                        environment: ["LOCTRACK_MQTT_PASSWORD": "guess"])
                    try await fake.feedAllOnceWatched(by: publisher)
                    let result = try await publisher.result(timeLimit: .seconds(10))

                    #expect(result.status == .exited(69), "\(result)")
                    #expect(result.stdout.isEmpty, "\(result)")
                    #expect(result.stderrLines.count == 1, "one line, not a retry per backoff step: \(result)")
                    #expect(result.duration < .seconds(5), "refused logins are not retried: \(result)")
                    #expect(broker.publishes(from: run.clientID).isEmpty)
                }
            }
        }

        @Test("given a broker with a password file when stream --publish logs in with --password-file then the fixes arrive", .timeLimit(.minutes(1)))
        func passwordFileLogsIn() async throws {
            let log = NMEALog.walk(epochs: 4)
            let run = try PublishRun("login")
            let topic = "loctrack/auth"
            let passwordFile = try run.home.file("password", "s3cret\n")
            try await withMosquitto(Mosquitto.Options(users: ["alice": "s3cret"])) { broker in
                let subscriber = try await broker.subscribe(topic: topic, clientID: subscriberID("login"), user: "alice", password: "s3cret")
                try await withGPSFake(log) { fake in
                    let (result, expected) = try await run.publishWholeLog(
                        broker.url(topic: topic, user: "alice"), ["--password-file", passwordFile], fake: fake,
                        subscriber: subscriber, count: 4)

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stderr.isEmpty, "\(result)")
                    #expect(subscriber.payloads(on: topic) == expected, "\(subscriber.report)")
                }
            }
        }

        @Test("given LOCTRACK_MQTT_PASSWORD when stream --publish logs in then the fixes arrive", .timeLimit(.minutes(1)))
        func passwordFromTheEnvironment() async throws {
            let log = NMEALog.walk(epochs: 3)
            let topic = "loctrack/env"
            try await withPublishing("env", topic: topic, broker: Mosquitto.Options(users: ["alice": "s3cret"]), login: ("alice", "s3cret")) { run, broker, subscriber in
                try await withGPSFake(log) { fake in
                    let publisher = try run.startStream(
                        broker.url(topic: topic, user: "alice"), source: fake.sourceArgument, environment: ["LOCTRACK_MQTT_PASSWORD": "s3cret"])
                    try await fake.waitForWatchers([publisher])
                    fake.feedAll()
                    try await subscriber.waitForMessages(count: 3)
                    publisher.signal(SIGINT)
                    let result = try await publisher.result()

                    #expect(result.status == .exited(0), "\(result)")
                    let times = subscriber.payloads(on: topic).map { payload in
                        (try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])?["time"] as? String
                    }
                    #expect(times == log.epochs.indices.map { log.time(ofEpoch: $0).iso8601 }, "\(subscriber.report)")
                }
            }
        }

        // MARK: TLS

        @Test("given a TLS listener with a test CA when stream --publish uses mqtts:// with --cafile then the fixes arrive; without --cafile nothing is published and stderr names the TLS problem", .timeLimit(.minutes(1)))
        func tls() async throws {
            let log = NMEALog.walk(epochs: 4)
            try await withMosquitto(Mosquitto.Options(tls: true)) { broker in
                let subscriber = try await broker.subscribe(topics: ["loctrack/#"], clientID: subscriberID("tls"))
                let trusted = try PublishRun("tls")
                try await withGPSFake(log) { fake in
                    let (result, expected) = try await trusted.publishWholeLog(
                        broker.tlsURL(topic: "loctrack/tls"), ["--cafile", broker.caFile], fake: fake,
                        subscriber: subscriber, count: 4)

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stderr.isEmpty, "\(result)")
                    #expect(subscriber.payloads(on: "loctrack/tls") == expected, "\(subscriber.report)")
                }

                // The system's CAs do not know the test CA: the handshake fails, whether loctrack retries or gives up.
                let untrusted = try PublishRun("untrusted")
                try await withGPSFake(log) { fake in
                    let publisher = try untrusted.startStream(broker.tlsURL(topic: "loctrack/untrusted"), source: fake.sourceArgument)
                    try await fake.feedAllOnceWatched(by: publisher)
                    try await waitUntil(timeout: .seconds(10), "loctrack to report the TLS failure") {
                        publisher.stderr?.lineCount ?? 0 >= 1 || publisher.pollTermination() != nil
                    }
                    try await Task.sleep(for: .seconds(2))  // a few retries, if it retries
                    publisher.signal(SIGINT)
                    let result = try await publisher.result()

                    #expect(result.status == .exited(0) || result.status == .exited(69), "\(result)")
                    #expect(result.stdout.isEmpty, "\(result)")
                    let stderr = result.stderr.lowercased()
                    #expect(["tls", "ssl", "certificate"].contains { stderr.contains($0) }, "stderr names the TLS problem: \(result)")
                    #expect(result.stderrLines.filter { !$0.contains("gpsd") }.count <= 2, "not a line per retry: \(result)")
                    #expect(subscriber.payloads(on: "loctrack/untrusted").isEmpty, "\(subscriber.report)")
                    #expect(broker.publishes(from: untrusted.clientID).isEmpty)
                }
            }
        }

        // MARK: OwnTracks

        @Test("given --format owntracks when streaming with --publish then each fix is an OwnTracks location with the fix's values, and a SIGKILL makes the broker publish the lwt will on TOPIC", .timeLimit(.minutes(1)))
        func ownTracksLocationsAndLastWill() async throws {
            let log = NMEALog.walk(epochs: 6)
            let topic = "owntracks/alice/phone"
            let startedAt = Int64(Date().timeIntervalSince1970)
            try await withPublishing("owntracks", topic: topic) { run, broker, subscriber in
                try await withGPSFake(log) { fake in
                    let publisher = try run.startStream(broker.url(topic: topic), ["--format", "owntracks", "--tid", "lt"], source: fake.sourceArgument)
                    try await fake.waitForWatchers([publisher])
                    fake.feedAll()
                    try await subscriber.waitForMessages(count: 6)
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(subscriber.messages.count == 6, "\(subscriber.report)")

                    let messages = subscriber.messages.prefix(6).map { $0.json ?? [:] }
                    #expect(subscriber.messages.prefix(6).allSatisfy { $0.topic == topic }, "\(subscriber.report)")
                    for (index, message) in messages.enumerated() {
                        let epoch = log.epochs[index]
                        func number(_ key: String) -> Double? { (message[key] as? NSNumber)?.doubleValue }
                        func close(_ key: String, _ expected: Double?, within tolerance: Double) -> Bool {
                            guard let value = number(key), let expected else { return false }
                            return abs(value - expected) <= tolerance + 1e-9
                        }
                        #expect(message["_type"] as? String == "location", "\(message)")
                        #expect(close("lat", epoch.expectedLatitude, within: 1e-7), "epoch \(index): \(message)")
                        #expect(close("lon", epoch.expectedLongitude, within: 1e-7), "epoch \(index): \(message)")
                        #expect((message["tst"] as? NSNumber)?.int64Value == log.time(ofEpoch: index).seconds, "the fix's time: \(message)")
                        let eph = try #require(log.expectedHorizontalError(ofEpoch: index))
                        #expect(message["acc"] as? Int == max(1, Int(eph.rounded())), "eph \(eph) rounded: \(message)")
                        // Whole units in OwnTracks, so within half a unit of the fix's value.
                        #expect(close("alt", log.expectedAltitudeMSL(ofEpoch: index), within: 0.5), "altitude above sea level: \(message)")
                        #expect(close("vac", log.expectedVerticalError(ofEpoch: index), within: 0.5), "epv: \(message)")
                        #expect(close("vel", epoch.expectedSpeed * 3.6, within: 0.5), "km/h: \(message)")
                        #expect(close("cog", epoch.expectedTrack, within: 0.5), "\(message)")
                        #expect(message["tid"] as? String == "lt", "\(message)")
                    }
                    #expect(messages.map { $0["acc"] as? Int } == [15, 17, 19, 21, 15, 17])

                    publisher.signal(SIGKILL)
                    let killed = try await publisher.result()
                    #expect(killed.status == .signaled(SIGKILL))
                    try await subscriber.waitForMessages(count: 7)
                    let will = try #require(subscriber.messages.last)
                    #expect(will.topic == topic, "\(subscriber.report)")
                    #expect(will.json?["_type"] as? String == "lwt", "\(will)")
                    let tst = (will.json?["tst"] as? NSNumber)?.int64Value ?? 0
                    #expect(tst >= startedAt - 2 && tst <= Int64(Date().timeIntervalSince1970) + 2, "the will's tst is when loctrack connected: \(will)")
                }
            }
        }

        @Test("given --publish --format owntracks and fixes with an eph of 1,140 m and 114 m when streamed then the broker gets only those within 100 m, and an --output file beside it every fix", .timeLimit(.minutes(1)))
        func ownTracksAccuracyLimit() async throws {
            // eph = 19 m × HDOP: 1,140 m (a cold start), 19, 38, 114, 57 and 98.8 m. (gpsd 3.25 takes
            // an HDOP of 99.9 for none and reports no eph; 3.22 reported 1,898 m.)
            let hdops = [60, 1, 2, 6, 3, 5.2]
            let log = NMEALog.walk(epochs: hdops.count, hdop: { hdops[$0] })
            let topic = "owntracks/alice/limit"
            try await withPublishing("owntracks-limit", topic: topic) { run, broker, subscriber in
                try await withGPSFake(log) { fake in
                    let file = "\(run.home.path)/track.jsonl"
                    let publisher = try run.startStream(
                        broker.url(topic: topic), ["--format", "owntracks", "--tid", "lt", "--output", file], source: fake.sourceArgument)
                    try await fake.waitForWatchers([publisher])
                    fake.feedAll()
                    try await subscriber.waitForMessages(count: 4)
                    try await waitUntil(timeout: .seconds(10), "all 6 fixes in the file") {
                        ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").count >= 6
                    }
                    try await Task.sleep(for: .milliseconds(300))
                    publisher.signal(SIGINT)
                    let result = try await publisher.result()

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(subscriber.messages.map { $0.json?["acc"] as? Int } == [19, 38, 57, 99], "\(subscriber.report)")
                    let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
                    #expect(lines.count == 6, "\(lines)")
                    #expect(lines.first?.contains(#""acc":1140,"#) == true, "\(lines)")
                    #expect(lines.dropFirst(3).first?.contains(#""acc":114,"#) == true, "\(lines)")
                }
            }
        }

        @Test("given a 100 m circle titled Corner and monitor run --publish --format owntracks --tid ap when a track passes through it then the enter and the leave are OwnTracks transitions on TOPIC/event with desc Corner, rid and tid", .timeLimit(.minutes(1)))
        func monitorOwnTracksTransitions() async throws {
            let run = try PublishRun("monitor-ot")
            let added = try await run.home.loctrack(["monitor", "add", "c", "--circle", MonitorTracks.circleArgument(radius: 100), "--title", "Corner"])
            #expect(added.status == .exited(0), "\(added)")
            let addedAt = Int64(Date().timeIntervalSince1970)
            let topic = "owntracks/alice/phone"
            // South to north through the centre, 10 m per epoch, eph 9.5 m: in at epoch 21, out at 42 (see MonitorEndToEnd).
            let log = MonitorTracks.log((0...60).map { (north: -300 + 10 * Double($0), east: 0) }, hdop: 0.5)
            try await withMosquitto { broker in
                let subscriber = try await broker.subscribe(topic: topic, clientID: subscriberID("monitor-ot"))
                try await withGPSFake(log) { fake in
                    let monitor = try run.startMonitor(broker.url(topic: topic), ["--format", "owntracks", "--tid", "ap"], source: fake.sourceArgument)
                    try await fake.waitForWatchers([monitor])
                    fake.feedAll()
                    try await subscriber.waitForMessages(count: 2, on: "\(topic)/event")
                    try await Task.sleep(for: .milliseconds(300))
                    monitor.signal(SIGINT)
                    let result = try await monitor.result()

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stdout.isEmpty, "\(result)")
                    let transitions = subscriber.payloads(on: "\(topic)/event").map { payload in
                        (try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]) ?? [:]
                    }
                    #expect(transitions.map { $0["event"] as? String } == ["enter", "leave"], "\(subscriber.report)")
                    let fixes = MonitorTracks.expectedFixes(log)
                    for (message, epoch) in zip(transitions, [21, 42]) {
                        #expect(message["_type"] as? String == "transition")
                        #expect(message["desc"] as? String == "Corner")
                        #expect(message["rid"] as? String == "c")
                        #expect(message["tid"] as? String == "ap")
                        #expect((message["tst"] as? NSNumber)?.int64Value == log.time(ofEpoch: epoch).seconds, "\(message)")
                        #expect(((message["wtst"] as? NSNumber)?.int64Value).map { abs($0 - addedAt) <= 5 } == true, "\(message)")
                        #expect(message["acc"] as? Int == 10)  // 9.5 m rounded
                        #expect(message["t"] as? String == "c")
                        #expect(abs(((message["lat"] as? NSNumber)?.doubleValue ?? 0) - fixes[epoch].latitude) < 1e-7, "\(message)")
                        #expect(abs(((message["lon"] as? NSNumber)?.doubleValue ?? 0) - fixes[epoch].longitude) < 1e-7, "\(message)")
                    }
                    #expect(!subscriber.messages.contains { $0.topic != "\(topic)/event" && $0.json?["_type"] as? String == "transition" },
                            "transitions only on TOPIC/event: \(subscriber.report)")
                }
            }
        }

        @Test("given a 100 m circle and monitor run --publish --format json when a track passes through it then the EVENT lines are messages on TOPIC/event", .timeLimit(.minutes(1)))
        func monitorJSONEvents() async throws {
            let run = try PublishRun("monitor-json")
            _ = try await run.home.loctrack(["monitor", "add", "c", "--circle", MonitorTracks.circleArgument(radius: 100)])
            let topic = "loctrack/monitor"
            let log = MonitorTracks.log((0...60).map { (north: -300 + 10 * Double($0), east: 0) }, hdop: 0.5)
            try await withMosquitto { broker in
                let subscriber = try await broker.subscribe(topic: topic, clientID: subscriberID("monitor-json"))
                try await withGPSFake(log) { fake in
                    let monitor = try run.startMonitor(broker.url(topic: topic), ["--format", "json"], source: fake.sourceArgument)
                    try await fake.waitForWatchers([monitor])
                    fake.feedAll()
                    try await subscriber.waitForMessages(count: 3, on: "\(topic)/event")
                    try await Task.sleep(for: .milliseconds(300))
                    monitor.signal(SIGINT)
                    let result = try await monitor.result()

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stdout.isEmpty, "\(result)")
                    let events = subscriber.payloads(on: "\(topic)/event").map { payload -> String in
                        let line = (try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]) ?? [:]
                        let time = (line["time"] as? String).flatMap { Timestamp(iso8601: $0) }
                        let epoch = time.map { String($0.seconds - log.start.seconds) } ?? "-"
                        return "\(line["class"] as? String ?? "?") \(line["id"] as? String ?? "?") \(line["state"] as? String ?? "?") @\(epoch)"
                    }
                    #expect(events == ["EVENT c unsatisfied @0", "EVENT c satisfied @21", "EVENT c unsatisfied @42"], "\(subscriber.report)")
                }
            }
        }
    }
}
