@testable import LocTrackMQTT
import LocTrackSpool
import Testing

@Suite("Publisher state machine: stopping and draining", .timeLimit(.minutes(1)))
struct PublisherStopTests {
    @Test("given messages in flight when a stop with 2 s to drain is asked for and the broker then acknowledges everything then the loop disconnects and ends at once, with the spool empty")
    func drainEndsWhenSpoolIsEmpty() throws {
        let harness = try PublisherHarness()
        try harness.spool(3)
        harness.start()
        harness.broker.accept()
        harness.step(at: 10)

        harness.requestStop(drainingFor: .seconds(2))
        harness.step(at: 20)
        #expect(!harness.isFinished)
        #expect(harness.wakeAt == Int64(20 + 1000))

        harness.broker.acknowledge()
        harness.step(at: 30)
        #expect(harness.isFinished)
        #expect(harness.broker.goodbyes == 1)
        #expect(harness.core.spool.pendingCount == 0)
    }

    @Test("given messages the broker never acknowledges when a stop with 2 s to drain is asked for then the loop ends at the deadline, not before, and they stay in the spool")
    func drainEndsAtTheDeadline() throws {
        let harness = try PublisherHarness()
        try harness.spool(3)
        harness.start()
        harness.broker.accept()
        harness.step(at: 10)

        harness.requestStop(drainingFor: .seconds(2))
        harness.step(at: 1000)
        harness.stepAtWakeUp()
        #expect(harness.now == 2000)
        #expect(!harness.isFinished)
        harness.stepAtWakeUp()
        #expect(harness.now == 3000)
        #expect(harness.isFinished)
        #expect(harness.broker.goodbyes == 1)
        #expect(harness.core.spool.pendingCount == 3)
    }

    @Test("given a broker that is down when a stop is asked for then the loop ends at once, without another attempt")
    func stopWhileDisconnectedEndsAtOnce() throws {
        let harness = try PublisherHarness()
        try harness.spool(2)
        harness.start()
        harness.broker.dropConnection()
        harness.step(at: 5)

        harness.requestStop(drainingFor: .seconds(2))
        harness.step(at: 6)
        #expect(harness.isFinished)
        #expect(harness.broker.attempts == [.connect])
        #expect(harness.broker.goodbyes == 0)
        #expect(harness.core.spool.pendingCount == 2)
    }

    @Test("given a connection attempt that has no answer yet when a stop is asked for then the loop ends at once")
    func stopWhileConnectingEndsAtOnce() throws {
        let harness = try PublisherHarness()
        harness.start()
        harness.requestStop(drainingFor: .seconds(2))
        harness.step(at: 1)
        #expect(harness.isFinished)
    }
}
