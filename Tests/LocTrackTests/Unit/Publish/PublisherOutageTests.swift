@testable import LocTrackMQTT
import LocTrackSpool
import Testing

@Suite("Publisher state machine: outages, backoff, refusals", .timeLimit(.minutes(1)))
struct PublisherOutageTests {
    /// The backoff's steps: 0.5 s doubling to 30 s; each delay is drawn from [step / 2, step].
    static let steps: [Int64] = [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]

    @Test("given messages in flight when the connection drops then it waits 0.25–0.5 s, reconnects, and the broker gets the unacknowledged ones again from the first unacknowledged, then the new ones")
    func reconnectResendsFromFirstUnacknowledged() throws {
        let harness = try PublisherHarness()
        try harness.spool(4)
        harness.start()
        harness.broker.accept()
        harness.step(at: 10)
        harness.broker.acknowledge(first: 1)
        harness.step(at: 20)

        harness.broker.dropConnection()
        harness.step(at: 100)
        let retryAt = try #require(harness.retryAt)
        #expect((100 + 250)...(100 + 500) ~= retryAt)
        #expect(harness.wakeAt == retryAt)
        harness.step(at: retryAt - 1)
        #expect(harness.broker.attempts == [.connect])

        try harness.spool(2)
        harness.stepAtRetry()
        #expect(harness.broker.attempts == [.connect, .reconnect])
        harness.broker.accept()
        harness.step()
        #expect(harness.broker.deliveredTexts == ["m0", "m1", "m2", "m3", "m1 (dup)", "m2 (dup)", "m3 (dup)", "m4", "m5"])
        harness.broker.acknowledge()
        harness.step()
        #expect(harness.core.spool.pendingCount == 0)
    }

    @Test("given a broker that stays down when every attempt fails then the delays follow the capped schedule (0.5 s doubling to 30 s, jittered) and start again at 0.5 s after a connection")
    func backoffSchedule() throws {
        let harness = try PublisherHarness()
        harness.start()
        var delays: [Int64] = []
        for _ in Self.steps {
            harness.broker.dropConnection()
            let failedAt = harness.now + 3
            harness.step(at: failedAt)
            let retryAt = try #require(harness.retryAt)
            delays.append(retryAt - failedAt)
            // Woken every second meanwhile (housekeeping), without an attempt.
            while let wakeAt = harness.wakeAt, wakeAt < retryAt {
                harness.step(at: wakeAt)
                #expect(harness.broker.attempts.count == delays.count)
            }
            harness.step(at: retryAt)
        }
        for (delay, step) in zip(delays, Self.steps) {
            #expect((step / 2)...step ~= delay, "delay \(delay) ms for the step of \(step) ms")
        }
        #expect(harness.broker.attempts == [.connect] + Array(repeating: .reconnect, count: Self.steps.count))

        harness.broker.accept()
        harness.step()
        harness.broker.dropConnection()
        harness.step(at: harness.now + 1)
        let delay = try #require(harness.retryAt) - harness.now
        #expect(250...500 ~= delay)
    }

    @Test("given the same jitter seed when two publishers meet the same outage then they wait the same delays")
    func jitterIsInjected() throws {
        func delays(seed: UInt64) throws -> [Int64] {
            let harness = try PublisherHarness(seed: seed)
            harness.start()
            var delays: [Int64] = []
            for _ in 0..<5 {
                harness.broker.dropConnection()
                harness.step()
                delays.append(try #require(harness.retryAt) - harness.now)
                harness.stepAtRetry()
            }
            return delays
        }
        #expect(try delays(seed: 7) == delays(seed: 7))
    }

    @Test("given an outage with five failed attempts when the broker finally accepts then the outage was reported once, and a second outage is reported again")
    func outageReportedOnce() throws {
        let harness = try PublisherHarness()
        harness.start()
        for _ in 0..<5 {
            harness.broker.dropConnection()
            harness.step()
            harness.stepAtRetry()
        }
        let reports = harness.takeReports()
        #expect(reports.count == 1)
        guard case .waiting(let broker, let reason, let retryIn) = reports.first else {
            Issue.record("expected a waiting report, got \(reports)")
            return
        }
        #expect(broker == harness.brokerURL)
        #expect(reason == "the connection was lost")
        #expect(Duration.milliseconds(250)...Duration.milliseconds(500) ~= retryIn)

        harness.broker.accept()
        harness.step()
        #expect(harness.takeReports() == [.connected(harness.brokerURL)])
        harness.broker.dropConnection()
        harness.step()
        #expect(harness.takeReports().count == 1)
    }

    @Test("given spooled messages when the broker refuses the login (CONNACK 4 or 5) then it reports the refusal, stops for good, and the messages stay in the spool", arguments: [Int32(4), 5])
    func refusedLoginIsFatal(code: Int32) throws {
        let harness = try PublisherHarness()
        try harness.spool(3)
        harness.start()
        harness.broker.refuse(code: code)
        harness.step()
        #expect(harness.takeReports() == [.refused(harness.brokerURL, reason: "CONNACK \(code)")])
        #expect(harness.isFinished)
        #expect(harness.broker.attempts == [.connect])
        #expect(harness.core.spool.pendingCount == 3)
    }

    @Test("given a broker that answers CONNACK 3 (server unavailable) when it refuses then the publisher says goodbye, reports the outage and tries again later")
    func otherConnackCodesAreRetried() throws {
        let harness = try PublisherHarness()
        harness.start()
        harness.broker.refuse(code: 3)
        harness.step(at: 1)
        #expect(harness.broker.goodbyes == 1)
        guard case .waiting(_, let reason, _) = harness.takeReports().first else {
            Issue.record("expected a waiting report")
            return
        }
        #expect(reason == "CONNACK 3")
        #expect(!harness.isFinished)
        harness.stepAtRetry()
        #expect(harness.broker.attempts == [.connect, .reconnect])
    }

    @Test("given the first connect call fails at once (a name that does not resolve) when the retry is due then it connects afresh instead of reconnecting")
    func failedFirstConnectIsRetriedAsConnect() throws {
        let harness = try PublisherHarness()
        harness.broker.failNextAttempt = true
        harness.start()
        #expect(harness.takeReports().count == 1)
        harness.stepAtRetry()
        #expect(harness.broker.attempts == [.connect, .connect])
    }
}
