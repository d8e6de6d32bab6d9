import Foundation
import Glibc
import LocTrack
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// `loctrack stream --publish mqtt://…` against a real gpsd (gpsfake) and a real
    /// mosquitto broker (``Mosquitto``), checked by a persistent QoS 1 subscriber.
    ///
    /// What each message must be is taken from a plain `loctrack stream` watching the
    /// same gpsd: every line it prints is one message, byte for byte, in order. The
    /// store-and-forward tests take the broker away (down at start, restarted mid-stream)
    /// or kill loctrack, and require every fix to arrive; duplicates are allowed only
    /// where loctrack was SIGKILLed.
    @Suite("Publish: stream --publish to a real MQTT broker", .serialized, .enabled(if: Mosquitto.isAvailable, "needs mosquitto and mosquitto-clients"), .timeLimit(.minutes(1)))
    struct PublishEndToEnd {
        @Test("given a broker when streaming with --publish then every line stream would print is one QoS 1 message on TOPIC, in order and byte for byte, and stdout stays empty", .timeLimit(.minutes(1)), arguments: ["json", "geojson", "text"])
        func everyLineIsOneMessage(format: String) async throws {
            let log = NMEALog.walk(epochs: 10)
            let topic = "loctrack/\(format)"
            try await withPublishing("lines-\(format)", topic: topic) { run, broker, subscriber in
                try await withGPSFake(log) { fake in
                    // 300 ms more: nothing else comes.
                    let (result, expected) = try await run.publishWholeLog(
                        broker.url(topic: topic), ["--format", format], plainFormat: format, fake: fake,
                        subscriber: subscriber, count: 10, settle: .milliseconds(300))

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stdout.isEmpty, "nothing on stdout: \(result)")
                    #expect(result.stderr.isEmpty, "\(result)")
                    #expect(expected.count == 10)
                    #expect(subscriber.messages.map(\.topic) == Array(repeating: topic, count: 10), "\(subscriber.report)")
                    #expect(subscriber.payloads(on: topic) == expected, "\(subscriber.report)")
                    if format == "json" {
                        for (index, payload) in subscriber.payloads(on: topic).enumerated() {
                            let line = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
                            expectTPV(line, isEpoch: index, of: log, device: fake.devices[0])
                        }
                    }
                    // QoS 1 by default, not retained, each sent once.
                    #expect(broker.publishes(from: run.clientID) == Array(
                        repeating: Mosquitto.PublishRecord(duplicate: false, qos: 1, retain: false, topic: topic), count: 10), "\(broker.logTail)")
                }
            }
        }

        @Test("given --odometer when streaming JSON with --publish then every message is the line stream --odometer prints, byte for byte, with the odometer and whether it moves", .timeLimit(.minutes(1)))
        func odometerInEveryMessage() async throws {
            let log = NMEALog.walk(epochs: 10)
            let topic = "loctrack/odometer"
            try await withPublishing("odometer", topic: topic) { run, broker, subscriber in
                try await withGPSFake(log) { fake in
                    // Each its own odometer file, both from 0: the same fixes give the same metres.
                    let (result, expected) = try await run.publishWholeLog(
                        broker.url(topic: topic), ["--odometer", "--odometer-file", run.home.path + "/published.odometer"],
                        plainOptions: ["--odometer", "--odometer-file", run.home.path + "/plain.odometer"], fake: fake,
                        subscriber: subscriber, count: 10, settle: .milliseconds(300))

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(expected.count == 10)
                    #expect(subscriber.payloads(on: topic) == expected, "\(subscriber.report)")
                    var metres: [Double] = []
                    for payload in subscriber.payloads(on: topic) {
                        let line = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
                        metres.append(try #require(line["odometer"] as? Double, "\(payload)"))
                        #expect(line["moving"] is Bool, "\(payload)")
                    }
                    #expect(metres == metres.sorted(), "the odometer never goes back: \(metres)")
                }
            }
        }

        @Test("given --qos 2 --retain when streaming with --publish then the broker gets QoS 2 retained messages and a later subscriber gets the last fix", .timeLimit(.minutes(1)))
        func qosAndRetain() async throws {
            let log = NMEALog.walk(epochs: 4)
            let topic = "loctrack/retained"
            try await withPublishing("qos2", topic: topic) { run, broker, subscriber in
                try await withGPSFake(log) { fake in
                    let (result, expected) = try await run.publishWholeLog(
                        broker.url(topic: topic), ["--qos", "2", "--retain"], fake: fake, subscriber: subscriber, count: 4)

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(subscriber.payloads(on: topic) == expected, "\(subscriber.report)")
                    #expect(broker.publishes(from: run.clientID) == Array(
                        repeating: Mosquitto.PublishRecord(duplicate: false, qos: 2, retain: true, topic: topic), count: 4), "\(broker.logTail)")
                    let late = try await broker.subscribe(topics: [topic], clientID: subscriberID("late"))
                    try await late.waitForMessages(count: 1)
                    try await Task.sleep(for: .milliseconds(200))
                    #expect(late.payloads(on: topic) == [expected.last!], "\(late.report)")
                }
            }
        }

        @Test("given the broker is down when stream --publish starts then it says so once on stderr, keeps the fixes, and once the broker is up 10 s later every fix arrives in order", .timeLimit(.minutes(1)))
        func brokerDownAtStart() async throws {
            let log = NMEALog.walk(epochs: 8)
            let topic = "loctrack/down"
            // The subscriber's session is made now and saved by the broker's SIGTERM.
            try await withPublishing("down", topic: topic) { run, broker, subscriber in
                try await broker.stop()
                try await withGPSFake(log) { fake in
                    let (publisher, plain) = try await run.startBesidePlainStream(broker.url(topic: topic), fake: fake)
                    fake.feedAll()
                    try await plain.waitForStdoutLines(8)
                    try await waitUntil(timeout: .seconds(10), "loctrack to report the broker unreachable") {
                        publisher.stderr?.lineCount ?? 0 >= 1 || publisher.pollTermination() != nil
                    }
                    // Down for 10 s: loctrack retries (0.5 s, 1 s, 2 s, 4 s, …) without saying more.
                    try await Task.sleep(until: publisher.started + .seconds(10))
                    #expect(publisher.pollTermination() == nil, "loctrack keeps waiting for the broker")
                    // (gpsd's side may add its own notice: no new fix for a while.)
                    let outage = (publisher.stderr?.lines ?? []).filter { $0.contains("MQTT") }
                    #expect(outage.count == 1, "one line for the outage: \(publisher.stderr?.text ?? "")")
                    #expect(outage.first?.contains("127.0.0.1:\(broker.port)") == true, "it names the broker: \(outage)")
                    #expect(broker.publishes(from: run.clientID).isEmpty)

                    try await broker.start()
                    // The next retry is due at most 8 s later (0.5 + 1 + 2 + 4 + 8 = 15.5 s from the start).
                    try await subscriber.waitForMessages(count: 8, timeout: .seconds(20))
                    let (result, expected) = try await stopPublishing(publisher, beside: plain)

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stdout.isEmpty, "\(result)")
                    #expect(subscriber.payloads(on: topic) == expected, "every fix, in order, once, with its own time: \(subscriber.report)")
                    // docs/usage.md: reported once, then again when it is back.
                    let brokerLines = result.stderrLines.filter { $0.contains("MQTT") }
                    #expect(brokerLines.count == 2 && brokerLines.first == outage.first, "the outage once, then its end: \(result)")
                }
            }
        }

        @Test("given a running stream --publish when the broker is stopped and started again mid-stream then every fix arrives once, in order, the ones from the outage too", .timeLimit(.minutes(1)))
        func brokerRestartsMidStream() async throws {
            let log = NMEALog.walk(epochs: 15)
            let topic = "loctrack/restart"
            try await withPublishing("restart", topic: topic) { run, broker, subscriber in
                try await withGPSFake(log) { fake in
                    let (publisher, plain) = try await run.startBesidePlainStream(broker.url(topic: topic), fake: fake)
                    fake.feed(epochs: 5)
                    try await subscriber.waitForMessages(count: 5)
                    try await Task.sleep(for: .milliseconds(200))  // the PUBACKs reach loctrack

                    try await broker.stop()
                    fake.feed(epochs: 5)  // published while the broker is down: spooled
                    try await plain.waitForStdoutLines(10)
                    try await Task.sleep(for: .milliseconds(500))
                    #expect(publisher.pollTermination() == nil, "loctrack keeps running without its broker")
                    try await broker.start()
                    fake.feed(epochs: 5)
                    try await plain.waitForStdoutLines(15)
                    try await subscriber.waitForMessages(count: 15, timeout: .seconds(20))
                    let (result, expected) = try await stopPublishing(publisher, beside: plain)

                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stdout.isEmpty, "\(result)")
                    #expect(expected.count == 15)
                    #expect(subscriber.payloads(on: topic) == expected, "every fix, in order, once: \(subscriber.report)")
                }
            }
        }

        @Test("given stream --publish SIGKILLed with a spooled backlog while the broker is down when it is restarted with the same spool and client id then every old fix and then every new one arrives, in order", .timeLimit(.minutes(1)))
        func sigkillWithBacklogThenRestart() async throws {
            let first = NMEALog.walk(epochs: 6)
            let second = NMEALog.walk(epochs: 4, start: Timestamp(seconds: NMEALog.defaultStart.seconds + 100))
            let topic = "loctrack/crash"
            try await withPublishing("crash", topic: topic) { run, broker, subscriber in
                try await broker.stop()
                let firstLines = try await withGPSFake(first) { fake in
                    let (publisher, plain) = try await run.startBesidePlainStream(broker.url(topic: topic), fake: fake)
                    fake.feedAll()
                    try await plain.waitForStdoutLines(6)
                    try await Task.sleep(for: .milliseconds(1_500))  // loctrack spools them
                    #expect(!run.spoolFiles.isEmpty, "the backlog is on disk")
                    publisher.signal(SIGKILL)
                    let killed = try await publisher.result()
                    #expect(killed.status == .signaled(SIGKILL), "\(killed)")
                    #expect(killed.stdout.isEmpty, "\(killed)")
                    return try await plain.interruptedLines()
                }
                #expect(firstLines.count == 6)

                try await broker.start()
                let secondLines = try await withGPSFake(second) { fake in
                    let (result, lines) = try await run.publishAgain(
                        broker.url(topic: topic), fake: fake, lines: 4, after: firstLines, subscriber: subscriber)
                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stdout.isEmpty, "\(result)")
                    return lines
                }
                #expect(secondLines.count == 4)

                let payloads = subscriber.payloads(on: topic)
                #expect(payloads.firstOccurrences == firstLines + secondLines,
                        "the spool first, in order, with the fixes' own times, then the new fixes: \(subscriber.report)")
                var seen = Set<String>()
                let duplicates = payloads.filter { !seen.insert($0).inserted }
                #expect(duplicates.allSatisfy(firstLines.contains), "only the killed run's messages may come twice: \(duplicates)")
                #expect(duplicates.count <= firstLines.count, "\(subscriber.report)")
            }
        }

        @Test("given stream --publish SIGKILLed with messages in flight (sent, not acknowledged) when it is restarted with the same spool then every fix arrives in order and only the in-flight ones may come twice", .timeLimit(.minutes(1)))
        func sigkillWithMessagesInFlight() async throws {
            let first = NMEALog.walk(epochs: 6)
            let second = NMEALog.walk(epochs: 4, start: Timestamp(seconds: NMEALog.defaultStart.seconds + 100))
            let topic = "loctrack/inflight"
            try await withPublishing("inflight", topic: topic) { run, broker, subscriber in
                let firstLines = try await withGPSFake(first) { fake in
                    let (publisher, plain) = try await run.startBesidePlainStream(broker.url(topic: topic), fake: fake)
                    fake.feed(epochs: 3)
                    try await subscriber.waitForMessages(count: 3)
                    try await Task.sleep(for: .milliseconds(300))  // acknowledged
                    // A frozen broker: loctrack's next PUBLISHes wait in the broker's socket, unacknowledged.
                    broker.pause()
                    fake.feedAll()
                    try await plain.waitForStdoutLines(6)
                    try await Task.sleep(for: .milliseconds(1_000))
                    publisher.signal(SIGKILL)
                    let killed = try await publisher.result()
                    #expect(killed.status == .signaled(SIGKILL), "\(killed)")
                    broker.resume()  // it now reads the dead connection's PUBLISHes and forwards them
                    return try await plain.interruptedLines()
                }
                #expect(firstLines.count == 6)

                let secondLines = try await withGPSFake(second) { fake in
                    let (result, lines) = try await run.publishAgain(
                        broker.url(topic: topic), fake: fake, lines: 4, after: firstLines, subscriber: subscriber)
                    #expect(result.status == .exited(0), "\(result)")
                    return lines
                }

                let payloads = subscriber.payloads(on: topic)
                #expect(payloads.firstOccurrences == firstLines + secondLines, "every fix, in order of first arrival: \(subscriber.report)")
                var seen = Set<String>()
                let duplicates = payloads.filter { !seen.insert($0).inserted }
                let inFlight = Array(firstLines.dropFirst(3))
                #expect(duplicates.allSatisfy(inFlight.contains), "only messages in flight at the SIGKILL may come twice: \(duplicates)")
                #expect(Set(duplicates).count == duplicates.count, "at most twice each: \(subscriber.report)")
            }
        }
    }
}
