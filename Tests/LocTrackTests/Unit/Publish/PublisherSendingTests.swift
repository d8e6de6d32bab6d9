import Synchronization
@testable import LocTrackMQTT
import LocTrackSpool
import Testing

@Suite("Publisher state machine: connecting, sending, acknowledging", .timeLimit(.minutes(1)))
struct PublisherSendingTests {
    @Test("given three spooled messages when the publisher starts and the broker accepts then it connects once, reports connected and sends them in order")
    func firstConnectThenSend() throws {
        let harness = try PublisherHarness()
        try harness.spool(3)

        harness.start()
        #expect(harness.broker.attempts == [.connect])
        #expect(harness.broker.deliveries.isEmpty)

        harness.broker.accept()
        harness.step(at: 20)
        #expect(harness.takeReports() == [.connected(harness.brokerURL)])
        #expect(harness.broker.deliveredTexts == PublisherHarness.texts(0...2))
        #expect(harness.broker.deliveries.allSatisfy { $0.message.qos == 1 && !$0.duplicate })
        #expect(harness.wakeAt == Int64(20 + 1000))  // only libmosquitto's housekeeping is due
    }

    @Test("given a window of 5 and 12 spooled messages when the broker acknowledges a few at a time then no more than 5 are ever in flight and each acknowledgement refills the window, in order")
    func windowRefillsOnAcknowledgement() throws {
        let harness = try PublisherHarness(maximumInflight: 5)
        try harness.spool(12)
        harness.start()
        harness.broker.accept()
        harness.step()
        #expect(harness.broker.deliveredTexts == PublisherHarness.texts(0...4))
        #expect(harness.broker.inflight.count == 5)

        for (acknowledged, deliveredThrough) in [(2, 6), (1, 7), (5, 11)] {
            harness.broker.acknowledge(first: acknowledged)
            harness.step()
            #expect(harness.broker.inflight.count <= 5)
            #expect(harness.broker.deliveredTexts == PublisherHarness.texts(0...deliveredThrough))
        }
        harness.broker.acknowledge()
        harness.step()
        #expect(harness.broker.inflight.isEmpty)
        #expect(harness.broker.deliveries.count == 12)
        #expect(harness.broker.mostInflight == 5)
    }

    @Test("given messages in flight when the broker acknowledges the oldest first then the spool's head moves over exactly those, and over all once all are acknowledged")
    func acknowledgementsRetireInOrder() throws {
        let harness = try PublisherHarness()
        try harness.spool(6)
        let head = harness.core.spool.firstUnacknowledged
        harness.start()
        harness.broker.accept()
        harness.step()
        #expect(harness.core.spool.pendingCount == 6)

        harness.broker.acknowledge(first: 2)
        harness.step()
        #expect(harness.core.spool.firstUnacknowledged == head + 2)
        #expect(harness.core.spool.pendingCount == 4)

        harness.broker.acknowledge()
        harness.step()
        #expect(harness.core.spool.firstUnacknowledged == head + 6)
        #expect(harness.core.spool.pendingCount == 0)
    }

    @Test("given a connected publisher when messages are spooled later then the next wake-up sends them after the earlier ones")
    func laterMessagesFollow() throws {
        let harness = try PublisherHarness()
        try harness.spool(2)
        harness.start()
        harness.broker.accept()
        harness.step()
        try harness.spool(3)
        harness.step(at: 5)
        #expect(harness.broker.deliveredTexts == PublisherHarness.texts(0...4))
    }

    @Test("given QoS 0 messages and a window of 5 when the broker accepts then all 12 go at once, none waits in flight, and the spool retires each as it is handed over")
    func qosZeroIsAcknowledgedWhenHandedOver() throws {
        let harness = try PublisherHarness(maximumInflight: 5)
        try harness.spool(12, qos: 0)
        harness.start()
        harness.broker.accept()
        harness.step()
        #expect(harness.broker.deliveredTexts == PublisherHarness.texts(0...11))
        #expect(harness.broker.inflight.isEmpty)
        #expect(harness.core.spool.pendingCount == 0)
    }

    @Test("given greetings and a subscription (Home Assistant's) when each connection is accepted then the client subscribes and greets before the spool, and hands on what arrives")
    func greetingsAndSubscriptions() throws {
        let received = Mutex<[String]>([])
        let harness = try PublisherHarness(
            adjust: { configuration in
                configuration.greetings = [.init(topic: "fleet/car1/availability", payload: Array("online".utf8), retain: true)]
                configuration.subscriptions = ["homeassistant/status"]
            },
            hooks: PublisherHooks(onMessage: { message in
                received.withLock { $0.append("\(message.topic) \(String(decoding: message.payload, as: UTF8.self))") }
            }))
        try harness.spool(2)
        harness.start()
        harness.broker.accept()
        harness.step(at: 10)
        #expect(harness.broker.subscriptions == ["homeassistant/status"])
        #expect(harness.broker.deliveredTexts == ["online", "m0", "m1"])
        #expect(harness.broker.deliveries[0].message.retain)
        harness.broker.send("online", on: "homeassistant/status")
        harness.step(at: 20)
        #expect(received.withLock { $0 } == ["homeassistant/status online"])

        harness.broker.dropConnection()
        harness.step(at: 30)
        harness.stepAtRetry()
        harness.broker.accept()
        harness.step()
        #expect(harness.broker.subscriptions == ["homeassistant/status", "homeassistant/status"])
        #expect(harness.broker.deliveredTexts.filter { $0 == "online" }.count == 2)
    }
}
