import Foundation
import Glibc
import LocTrackMQTT
import LocTrackTestSupport
import Synchronization
import Testing

extension EndToEndTests {
    /// `loctrack stream --publish` to a real mosquitto through a ``TCPRelay``, a network
    /// the test breaks: connections reset and then refused for a while (a dropped link),
    /// or bytes silently held back (a network that drops packets without telling anyone).
    /// The subscriber connects to the broker directly, so it sees exactly what the broker
    /// got. As in ``PublishEndToEnd``, what the messages must be is what a plain `stream`
    /// on the same gpsd prints.
    ///
    /// At QoS 1 a drop may cost a duplicate: a PUBLISH the broker took whose PUBACK was lost
    /// is sent again (DUP) on the next connection, and the broker passes it on again.
    ///
    /// A silent drop longer than the keep-alive is tested on the library's ``Publisher``:
    /// loctrack's keep-alive is fixed at 30 s, and such a drop is noticed only after two.
    @Suite(
        "Publish: the network between stream --publish and the broker drops", .serialized,
        .enabled(if: Mosquitto.isAvailable, "needs mosquitto and mosquitto-clients"),
        .timeLimit(.minutes(1)))
    struct PublishNetworkEndToEnd {
        /// loctrack's in-flight window (`PublisherConfiguration.maximumInflight`): at most
        /// this many messages can be sent and unacknowledged when the network drops.
        static let inflightWindow = 200

        @Test("given stream --publish through a network that drops twice mid-stream (first PUBLISHes, then PUBACKs lost; connections reset, then refused for 2 s) when it comes back then every fix arrives in order, only those whose PUBACK was lost come twice, and stderr says so once per outage", .timeLimit(.minutes(1)))
        func networkDropsTwice() async throws {
            let log = NMEALog.walk(epochs: 30)
            let topic = "loctrack/netdrop"
            try await withPublishing("netdrop", topic: topic) { run, broker, subscriber in
                func distinctArrived(_ count: Int) async throws {
                    try await subscriber.waitForMessages(timeout: .seconds(20), "\(count) distinct fixes") { Set($0.map(\.payload)).count >= count }
                }
                try await withTCPRelay(to: broker.port) { relay in
                    try await withGPSFake(log) { fake in
                        let (publisher, plain) = try await run.startBesidePlainStream(broker.url(topic: topic, via: relay.port), fake: fake)
                        fake.feed(epochs: 5)
                        try await subscriber.waitForMessages(count: 5)
                        try await Task.sleep(for: .milliseconds(300))  // their PUBACKs reach loctrack

                        // Drop 1: 5 PUBLISHes are lost on the way, before the broker has them.
                        relay.blackhole(true)
                        fake.feed(epochs: 5)
                        try await plain.waitForStdoutLines(10)
                        try await Task.sleep(for: .milliseconds(300))  // loctrack sends them into the blackhole
                        let refusedBefore = relay.refusedConnections
                        try await dropNetwork(relay, feeding: fake, until: plain, prints: 15, thenRestore: .both)
                        let refusedInFirstOutage = relay.refusedConnections - refusedBefore
                        try await distinctArrived(15)
                        try await Task.sleep(for: .milliseconds(300))  // their PUBACKs reach loctrack

                        // Drop 2: the broker takes 5 more and passes them on, but their PUBACKs are lost.
                        relay.blackhole(true, direction: .toClient)
                        fake.feed(epochs: 5)
                        try await distinctArrived(20)
                        try await dropNetwork(relay, feeding: fake, until: plain, prints: 25, thenRestore: .toClient)
                        try await distinctArrived(25)

                        fake.feed(epochs: 5)
                        try await distinctArrived(30)
                        let (result, expected) = try await stopPublishing(publisher, beside: plain)  // for anything extra to show

                        #expect(result.status == .exited(0), "\(result)")
                        #expect(result.stdout.isEmpty, "\(result)")
                        #expect(!result.stderr.contains("left in the spool"), "the broker acknowledged every message: \(result)")
                        try #require(expected.count == 30)
                        let payloads = subscriber.payloads(on: topic)
                        #expect(payloads.firstOccurrences == expected, "every fix, in order of first arrival: \(subscriber.report)")
                        var seen = Set<String>()
                        let duplicates = payloads.filter { !seen.insert($0).inserted }
                        let sentBeforeLastDrop = Array(expected.prefix(20))
                        #expect(Set(expected[15..<20]).isSubset(of: duplicates), "the 5 whose PUBACKs were lost come twice: \(subscriber.report)")
                        #expect(Set(expected[5..<10]).isDisjoint(with: duplicates), "the 5 lost before the broker had them come once: \(subscriber.report)")
                        #expect(duplicates.allSatisfy(sentBeforeLastDrop.contains), "only messages sent before a drop come twice: \(duplicates)")
                        #expect(duplicates.count <= Self.inflightWindow && Set(duplicates).count == duplicates.count, "\(subscriber.report)")
                        #expect(Array(payloads.drop(while: { $0 != expected[20] })) == Array(expected[20...]),
                                "after the last drop's resend, every fix once, in order: \(subscriber.report)")
                        // The resends carry the DUP flag; the broker took every PUBLISH at QoS 1 and passed each on.
                        let received = broker.publishes(from: run.clientID)
                        #expect(received.count == payloads.count && received.allSatisfy { $0.qos == 1 && $0.topic == topic }, "\(broker.logTail)")
                        #expect(received.filter(\.duplicate).count >= max(5, duplicates.count), "\(broker.logTail)")

                        #expect(relay.relayedConnections == 3, "the first connection and one per drop")
                        #expect(refusedInFirstOutage >= 2 && relay.refusedConnections - refusedInFirstOutage >= 2,
                                "loctrack retried while the network was down (0.5 s, 1 s, … backoff): \(relay.refusedConnections) refused")
                        // docs/usage.md: an outage once, then again when the broker is back.
                        let brokerLines = result.stderrLines.filter { $0.contains("MQTT") }
                        let unreachable = "cannot reach the MQTT broker at 127.0.0.1:\(relay.port)"
                        let back = "connected to the MQTT broker at 127.0.0.1:\(relay.port)"
                        #expect(brokerLines.map { $0.contains(unreachable) ? "down" : $0.contains(back) ? "back" : $0 } == ["down", "back", "down", "back"],
                                "once per outage: \(result)")
                    }
                }
            }
        }

        @Test("given stream --publish through a network that silently drops every packet for 3 s (less than the 30 s keep-alive) when it carries them again then every fix arrives once, in order, on the same connection", .timeLimit(.minutes(1)))
        func silentDropShorterThanKeepAlive() async throws {
            let log = NMEALog.walk(epochs: 15)
            let topic = "loctrack/blackhole"
            try await withPublishing("blackhole", topic: topic) { run, broker, subscriber in
                try await withTCPRelay(to: broker.port) { relay in
                    try await withGPSFake(log) { fake in
                        let (publisher, plain) = try await run.startBesidePlainStream(broker.url(topic: topic, via: relay.port), fake: fake)
                        fake.feed(epochs: 5)
                        try await subscriber.waitForMessages(count: 5)

                        relay.blackhole(true)
                        let dropped = ContinuousClock.now
                        fake.feed(epochs: 5)  // sent into the blackhole, unacknowledged
                        try await plain.waitForStdoutLines(10)
                        try await Task.sleep(until: dropped + .seconds(3))
                        #expect(subscriber.messages.count == 5, "nothing crossed the blackhole: \(subscriber.report)")
                        #expect(publisher.pollTermination() == nil)
                        relay.blackhole(false)

                        fake.feed(epochs: 5)
                        try await subscriber.waitForMessages(count: 15)
                        let (result, expected) = try await stopPublishing(publisher, beside: plain)  // for anything extra to show

                        #expect(result.status == .exited(0), "\(result)")
                        #expect(result.stdout.isEmpty, "\(result)")
                        #expect(expected.count == 15)
                        #expect(subscriber.payloads(on: topic) == expected, "every fix, in order, once: \(subscriber.report)")
                        #expect(broker.publishes(from: run.clientID) == Array(
                            repeating: Mosquitto.PublishRecord(duplicate: false, qos: 1, retain: false, topic: topic), count: 15),
                                "each sent once, none again: \(broker.logTail)")
                        #expect(relay.acceptedConnections == 1, "the connection outlived the silence")
                        #expect(result.stderrLines.filter { $0.contains("MQTT") }.isEmpty, "no outage was noticed: \(result)")
                    }
                }
            }
        }

        @Test("given a Publisher with a 5 s keep-alive through a network that silently drops every packet for 13 s when the keep-alive goes unanswered then it reports the outage, reconnects once the network carries packets again and sends the held message again, each message arriving once, in order", .timeLimit(.minutes(1)))
        func silentDropLongerThanKeepAlive() async throws {
            // Library level: loctrack's keep-alive is 30 s (the lost connection is noticed
            // after about 60 s); 5 s is the least libmosquitto accepts.
            let topic = "loctrack/keepalive"
            try await withPublishing("keepalive", topic: topic) { run, broker, subscriber in
                try await withTCPRelay(to: broker.port) { relay in
                    var configuration = PublisherConfiguration(
                        broker: try BrokerURL(parsing: broker.url(topic: topic, via: relay.port)), clientID: run.clientID,
                        spoolDirectory: run.spool, spoolLimitBytes: 1_000_000)
                    configuration.keepAliveSeconds = 5
                    let statuses = Mutex<[(at: ContinuousClock.Instant, status: String)]>([])
                    let publisher = try Publisher(configuration) { status in
                        statuses.withLock { $0.append((.now, status.description)) }
                    }
                    try publisher.publish([Array("one".utf8)], to: topic)
                    try await subscriber.waitForMessages(count: 1)
                    try await Task.sleep(for: .milliseconds(300))  // its PUBACK reaches the publisher

                    relay.blackhole(true)
                    let dropped = ContinuousClock.now
                    try publisher.publish([Array("two".utf8)], to: topic)  // sent into the blackhole
                    // A PINGREQ after 5 s without traffic, given up 5 s later (libmosquitto counts whole seconds).
                    try await Task.sleep(until: dropped + .seconds(13))
                    let duringDrop = statuses.withLock { $0 }
                    relay.blackhole(false)
                    try publisher.publish([Array("three".utf8)], to: topic)
                    try await subscriber.waitForMessages(count: 3, timeout: .seconds(10))
                    try await Task.sleep(for: .milliseconds(500))  // for anything extra to show
                    await publisher.finish()

                    #expect(subscriber.payloads(on: topic) == ["one", "two", "three"], "each once, in order: \(subscriber.report)")
                    #expect(broker.publishes(from: run.clientID).map(\.duplicate) == [false, true, false],
                            "\"two\" was sent again (DUP) on the new connection: \(broker.logTail)")
                    #expect(publisher.pendingCount == 0)
                    let lines = statuses.withLock { $0 }.map(\.status)
                    #expect(lines.count == 3 && lines[0].hasPrefix("connected") && lines[1].contains("the connection was lost")
                            && lines[2].hasPrefix("connected"), "up, lost once, up again: \(lines)")
                    let noticed = duringDrop.last.map { $0.at - dropped } ?? .zero
                    #expect(duringDrop.count == 2 && noticed >= .seconds(5), "noticed by the keep-alive, while the network was silent: after \(noticed)")
                    #expect(relay.relayedConnections >= 2)
                }
            }
        }

        /// The network goes down: every relayed connection is reset and new ones are reset
        /// for 2 s, during which 5 more fixes are spooled (`plain` prints `lines` in all);
        /// then it is back (and a blackhole toward `thenRestore` ends).
        private func dropNetwork(
            _ relay: TCPRelay, feeding fake: GPSFake, until plain: ChildProcess, prints lines: Int,
            thenRestore blackholed: TCPRelay.Direction? = nil
        ) async throws {
            relay.refuseConnections(true)  // before the cut: loctrack's first retry is refused too
            relay.cut()
            let dropped = ContinuousClock.now
            if let blackholed { relay.blackhole(false, direction: blackholed) }
            fake.feed(epochs: 5)
            try await plain.waitForStdoutLines(lines)
            try await Task.sleep(until: dropped + .seconds(2))
            relay.refuseConnections(false)
        }
    }
}
