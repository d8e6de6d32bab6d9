import LocTrackTestSupport
import LocTrack
@testable import LocTrackMQTT
import LocTrackSpool
import Testing

/// The machine alone, for what the spool and the in-memory broker cannot easily cause:
/// a spool that fails, and the order of a step's events.
@Suite("Publisher state machine: decisions without a loop", .timeLimit(.minutes(1)))
struct PublisherStateMachineTests {
    typealias Machine = PublisherStateMachine<SplitMix64>

    static let broker = try! BrokerURL(parsing: "mqtt://broker.test/t")

    /// A machine connected at time 0 with `spooled` messages from sequence 10.
    static func connected(spooled: UInt64 = 0, maximumInflight: Int = 200) -> Machine {
        var machine = Machine(
            broker: broker, maximumInflight: maximumInflight, firstUnacknowledged: 10, jitter: SplitMix64(seed: 1))
        machine.appended(upTo: 10 + spooled)
        #expect(machine.nextAction(now: 0) == .connect)
        machine.connackReceived(0, reason: "", now: 0)
        #expect(machine.nextAction(now: 0) == .report(.connected(broker)))
        return machine
    }

    @Test("given a connected machine when reading the spool fails then it reports the failure and finishes, saying goodbye to the broker")
    func spoolFailureIsFatal() {
        var machine = Self.connected(spooled: 3)
        #expect(machine.nextAction(now: 1) == .publish(from: 10, limit: 200))
        let damage = SpoolError.corrupt("/x/00000000000000000000.seg", at: nil, "a record's CRC does not match")
        machine.spoolFailed(damage)
        #expect(machine.nextAction(now: 1) == .report(.spoolFailed(damage)))
        #expect(machine.nextAction(now: 1) == .finish(disconnecting: true))
        #expect(machine.isFinished)
    }

    @Test("given a window of 2 when messages are handed over then it asks for the rest only as acknowledgements make room, and retires their sequences")
    func windowInActions() {
        var machine = Self.connected(spooled: 3, maximumInflight: 2)
        #expect(machine.nextAction(now: 1) == .publish(from: 10, limit: 2))
        machine.handedOver(10, messageID: 1, qos: 1)
        machine.handedOver(11, messageID: 2, qos: 1)
        #expect(machine.nextAction(now: 1) == .sleep(until: 1001))
        machine.acknowledged([2, 99])
        #expect(machine.nextAction(now: 2) == .acknowledge([11]))
        #expect(machine.nextAction(now: 2) == .publish(from: 12, limit: 1))
    }

    @Test("given a step whose read failed because the broker refused the login when its events are handed over then the refusal is the reason, not the read")
    func refusalBeatsTheReadFailure() {
        var machine = Machine(broker: Self.broker, maximumInflight: 200, firstUnacknowledged: 0, jitter: SplitMix64(seed: 1))
        #expect(machine.nextAction(now: 0) == .connect)
        machine.received(
            MQTTEvents(connackCodes: [5], published: [], disconnects: [7]), failure: "read: connection lost", now: 5,
            describingConnack: { "refused \($0)" })
        #expect(machine.nextAction(now: 5) == .report(.refused(Self.broker, reason: "refused 5")))
        #expect(machine.nextAction(now: 5) == .finish(disconnecting: false))
    }

    @Test("given a step whose read failed with a TLS error and whose disconnect callback fired when its events are handed over then the TLS error is the reason")
    func explainingFailureBeatsTheDisconnect() {
        var machine = Machine(broker: Self.broker, maximumInflight: 200, firstUnacknowledged: 0, jitter: SplitMix64(seed: 1))
        #expect(machine.nextAction(now: 0) == .connect)
        machine.received(
            MQTTEvents(connackCodes: [], published: [], disconnects: [8]), failure: "read: A TLS error occurred.", explains: true,
            now: 5, describingConnack: { "refused \($0)" })
        guard case .report(.waiting(_, let reason, _)) = machine.nextAction(now: 5) else {
            Issue.record("no outage reported")
            return
        }
        #expect(reason == "read: A TLS error occurred.")
    }

    @Test("given a step whose read failed (not explaining more) and whose disconnect callback fired when its events are handed over then the disconnect is the reason, as before")
    func plainFailureAfterTheDisconnect() {
        var machine = Machine(broker: Self.broker, maximumInflight: 200, firstUnacknowledged: 0, jitter: SplitMix64(seed: 1))
        #expect(machine.nextAction(now: 0) == .connect)
        machine.received(
            MQTTEvents(connackCodes: [], published: [], disconnects: [7]), failure: "read: The connection was lost.",
            now: 5, describingConnack: { "refused \($0)" })
        guard case .report(.waiting(_, let reason, _)) = machine.nextAction(now: 5) else {
            Issue.record("no outage reported")
            return
        }
        #expect(reason == "the connection was lost")
    }

    @Test("given a lost connection when the same loss is reported again (a failed read, then the disconnect callback) then the first retry stands and one outage is reported")
    func oneLossReportedTwice() {
        var machine = Self.connected()
        machine.connectionLost("read: connection reset", now: 100)
        guard case .waiting(let retryAt) = machine.connection else {
            Issue.record("not waiting: \(machine.connection)")
            return
        }
        machine.connectionLost("the connection was lost", now: 150)
        #expect(machine.connection == .waiting(retryAt: retryAt))
        guard case .report(.waiting(_, let reason, _)) = machine.nextAction(now: 150) else {
            Issue.record("no outage reported")
            return
        }
        #expect(reason == "read: connection reset")
        #expect(machine.nextAction(now: 150) == .sleep(until: retryAt))
    }

    @Test("given a stop with a deadline while connected and draining when nothing arrives then it sleeps until the deadline at the latest and finishes there")
    func stopDeadlineBoundsTheSleep() {
        var machine = Self.connected(spooled: 1)
        #expect(machine.nextAction(now: 0) == .publish(from: 10, limit: 200))
        machine.handedOver(10, messageID: 1, qos: 1)
        machine.stopRequested(deadline: 300)
        machine.stopRequested(deadline: 5000)  // the first request's deadline stands
        #expect(machine.nextAction(now: 100) == .sleep(until: 300))
        #expect(machine.nextAction(now: 300) == .finish(disconnecting: true))
    }

    @Test("given a machine that greets (Home Assistant's online) when each connection is accepted then it greets before the spool, again after a reconnect")
    func greetsEveryConnection() {
        var machine = Machine(
            broker: Self.broker, maximumInflight: 200, firstUnacknowledged: 10, greets: true, jitter: SplitMix64(seed: 1))
        machine.appended(upTo: 12)
        #expect(machine.nextAction(now: 0) == .connect)
        machine.connackReceived(0, reason: "", now: 0)
        #expect(machine.nextAction(now: 0) == .report(.connected(Self.broker)))
        #expect(machine.nextAction(now: 0) == .greet)
        #expect(machine.nextAction(now: 0) == .publish(from: 10, limit: 200))
        machine.handedOver(10, messageID: 1, qos: 1)
        machine.handedOver(11, messageID: 2, qos: 1)
        machine.connectionLost("read: connection reset", now: 5)
        guard case .report(.waiting) = machine.nextAction(now: 5) else {
            Issue.record("no outage reported")
            return
        }
        guard case .sleep(let retryAt) = machine.nextAction(now: 5) else {
            Issue.record("no retry scheduled")
            return
        }
        #expect(machine.nextAction(now: retryAt) == .reconnect)
        machine.connackReceived(0, reason: "", now: retryAt)
        #expect(machine.nextAction(now: retryAt) == .report(.connected(Self.broker)))
        #expect(machine.nextAction(now: retryAt) == .greet)
        // The greeting's acknowledgement carries an id not in flight: ignored.
        machine.acknowledged([77, 1, 2])
        #expect(machine.nextAction(now: retryAt) == .acknowledge([10, 11]))
    }
}
