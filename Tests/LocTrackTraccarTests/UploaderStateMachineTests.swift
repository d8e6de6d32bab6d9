@testable import LocTrackTraccar
import LocTrackSpool
import Testing

@Suite("Uploader state machine: oldest first, one at a time, retries and refusals", .timeLimit(.minutes(1)))
struct UploaderStateMachineTests {
    typealias Machine = UploaderStateMachine<ScriptedJitter>

    static let server = "traccar.test:5055"

    /// A machine with `spooled` positions from sequence 10.
    static func machine(spooled: UInt64 = 3, jitter: ScriptedJitter = .longest) -> Machine {
        var machine = Machine(server: server, deviceID: "car1", firstUnacknowledged: 10, jitter: jitter)
        machine.appended(upTo: 10 + spooled)
        return machine
    }

    static let unavailable = HTTPOutcome.reply(status: 503)
    static let ok = HTTPOutcome.reply(status: 200)
    static let noReply = HTTPOutcome.failed(HTTPFailure(.noReply, reason: "Empty reply from server"))
    static let refused = HTTPOutcome.failed(HTTPFailure(.notSent, reason: "Connection refused"))

    /// Fails the head with `outcome` at each retry time, and returns the delays between them.
    static func delays(_ machine: inout Machine, failing count: Int, with outcome: HTTPOutcome) -> [Int64] {
        var now: Int64 = 0
        var delays: [Int64] = []
        for _ in 0..<count {
            #expect(machine.nextAction(now: now) == .send(from: 10))
            machine.completed(10, outcome: outcome, now: now)
            while case .report = machine.nextAction(now: now) {}
            guard case .sleep(let until) = machine.nextAction(now: now) else {
                Issue.record("expected a sleep")
                return delays
            }
            delays.append(until - now)
            now = until
        }
        return delays
    }

    @Test("given positions spooled when the server takes each then they go oldest first, one request at a time, each retired")
    func oldestFirst() {
        var machine = Self.machine(spooled: 2)
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: Self.ok, now: 1)
        #expect(machine.nextAction(now: 1) == .acknowledge(10))
        #expect(machine.nextAction(now: 1) == .send(from: 11))
        machine.completed(11, outcome: .reply(status: 204), now: 2)
        #expect(machine.nextAction(now: 2) == .acknowledge(11))
        #expect(machine.nextAction(now: 2) == .sleep(until: .max))
        #expect(machine.head == 12)
    }

    @Test("given an outage of 503s when the server is back then the head is retried with a backoff doubling to 5 s, the outage said once and its end once")
    func outageThenBack() {
        var machine = Self.machine()
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: Self.unavailable, now: 0)
        #expect(machine.nextAction(now: 0) == .report(.waiting(server: Self.server, reason: "HTTP 503", retryIn: .milliseconds(500))))
        #expect(machine.nextAction(now: 0) == .sleep(until: 500))
        // More positions arrive: nothing newer goes before the head.
        machine.appended(upTo: 20)
        #expect(machine.nextAction(now: 100) == .sleep(until: 500))
        var now: Int64 = 500
        var delays: [Int64] = []
        for _ in 0..<5 {
            #expect(machine.nextAction(now: now) == .send(from: 10))
            machine.completed(10, outcome: Self.unavailable, now: now)
            guard case .sleep(let until) = machine.nextAction(now: now) else {
                Issue.record("a second report during one outage")
                return
            }
            delays.append(until - now)
            now = until
        }
        #expect(delays == [1000, 2000, 4000, 5000, 5000])
        #expect(machine.nextAction(now: now) == .send(from: 10))
        machine.completed(10, outcome: Self.ok, now: now + 3)
        #expect(machine.nextAction(now: now + 3) == .report(.resumed(server: Self.server)))
        #expect(machine.nextAction(now: now + 3) == .acknowledge(10))
        #expect(machine.nextAction(now: now + 3) == .send(from: 11))
        #expect(machine.possibleDuplicates == 0)
        // A new outage starts from the first step again, and is said again.
        machine.completed(11, outcome: Self.refused, now: now + 4)
        #expect(machine.nextAction(now: now + 4) == .report(.waiting(server: Self.server, reason: "Connection refused", retryIn: .milliseconds(500))))
    }

    @Test("given the shortest and the longest jitter when failures go on then every delay is within half its step and the step, capped at 5 s")
    func jitterBounds() {
        var shortest = Self.machine(jitter: .shortest)
        var longest = Self.machine(jitter: .longest)
        let low = Self.delays(&shortest, failing: 8, with: Self.refused)
        let high = Self.delays(&longest, failing: 8, with: Self.refused)
        #expect(low == [250, 500, 1000, 2000, 2500, 2500, 2500, 2500])
        #expect(high == [500, 1000, 2000, 4000, 5000, 5000, 5000, 5000])
        var mixed = Self.machine(jitter: ScriptedJitter([1 << 32, .max / 2, .max, 12_345_678_901_234_567_890]))
        for (index, delay) in Self.delays(&mixed, failing: 12, with: Self.unavailable).enumerated() {
            #expect(delay >= low[min(index, 7)] && delay <= high[min(index, 7)])
        }
    }

    @Test("given a connection closed without a reply when it happens twice then the same position is sent again each time and counted as a possible duplicate")
    func replylessCloseResends() {
        var machine = Self.machine()
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: Self.noReply, now: 0)
        #expect(machine.nextAction(now: 0) == .report(.waiting(server: Self.server, reason: "Empty reply from server", retryIn: .milliseconds(500))))
        #expect(machine.nextAction(now: 0) == .sleep(until: 500))
        #expect(machine.nextAction(now: 500) == .send(from: 10))
        machine.completed(10, outcome: Self.noReply, now: 500)
        #expect(machine.nextAction(now: 1500) == .send(from: 10))
        machine.completed(10, outcome: Self.ok, now: 1500)
        #expect(machine.possibleDuplicates == 2)
        #expect(machine.nextAction(now: 1500) == .report(.resumed(server: Self.server)))
        #expect(machine.nextAction(now: 1500) == .acknowledge(10))
    }

    @Test("given a refused connection when retried then nothing is counted as a possible duplicate")
    func refusedIsNoDuplicate() {
        var machine = Self.machine()
        _ = Self.delays(&machine, failing: 3, with: Self.refused)
        #expect(machine.possibleDuplicates == 0)
    }

    @Test("given an unknown device (400) when it goes on then it is said once, the head is offered every 30 s and never dropped, nothing newer is sent, and the 200 after it says so")
    func unknownDevice() {
        var machine = Self.machine()
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: .reply(status: 400), now: 100)
        let said = machine.nextAction(now: 100)
        #expect(said == .report(.unknownDevice(deviceID: "car1", probeEvery: .seconds(30))))
        if case .report(let status) = said {
            #expect(status.description == "traccar: the server does not know device \"car1\" (HTTP 400); keeping positions and asking again every 30 s")
            #expect(!status.isFatal)
        }
        #expect(machine.nextAction(now: 100) == .sleep(until: 30_100))
        machine.appended(upTo: 50)
        #expect(machine.nextAction(now: 20_000) == .sleep(until: 30_100))
        for probe in 1...4 {
            let at = 100 + Int64(probe) * 30_000
            #expect(machine.nextAction(now: at) == .send(from: 10))
            machine.completed(10, outcome: .reply(status: 400), now: at)
            #expect(machine.nextAction(now: at) == .sleep(until: at + 30_000))
        }
        #expect(machine.nextAction(now: 150_100) == .send(from: 10))
        machine.completed(10, outcome: Self.ok, now: 150_100)
        #expect(machine.nextAction(now: 150_100) == .report(.resumed(server: Self.server)))
        #expect(machine.nextAction(now: 150_100) == .acknowledge(10))
        #expect(machine.nextAction(now: 150_100) == .send(from: 11))
    }

    @Test(
        "given another 4xx or a 3xx when it answers then it is treated as a 400 and said with its status",
        arguments: [401, 403, 404, 429, 301])
    func otherRefusals(status: Int) {
        var machine = Self.machine()
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: .reply(status: status), now: 0)
        let said = machine.nextAction(now: 0)
        #expect(said == .report(.refused(server: Self.server, deviceID: "car1", status: status, probeEvery: .seconds(30))))
        if case .report(let report) = said {
            #expect(report.description == "traccar: the server at traccar.test:5055 refuses positions of device \"car1\" (HTTP \(status)); keeping positions and asking again every 30 s")
        }
        #expect(machine.nextAction(now: 0) == .sleep(until: 30_000))
    }

    @Test("given a 400 then a 503 when they follow each other then each problem is said once, and the retry after the 503 is short again")
    func refusalThenOutage() {
        var machine = Self.machine()
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: .reply(status: 400), now: 0)
        #expect(machine.nextAction(now: 0) == .report(.unknownDevice(deviceID: "car1", probeEvery: .seconds(30))))
        #expect(machine.nextAction(now: 30_000) == .send(from: 10))
        machine.completed(10, outcome: Self.unavailable, now: 30_000)
        #expect(machine.nextAction(now: 30_000) == .report(.waiting(server: Self.server, reason: "HTTP 503", retryIn: .milliseconds(500))))
        #expect(machine.nextAction(now: 30_000) == .sleep(until: 30_500))
    }

    @Test("given nothing spooled when a stop is asked for then it finishes at once")
    func stopWhenDrained() {
        var machine = Self.machine(spooled: 0)
        #expect(machine.nextAction(now: 0) == .sleep(until: .max))
        machine.stopRequested(deadline: 2000)
        #expect(machine.nextAction(now: 0) == .finish)
        #expect(machine.isFinished)
    }

    @Test("given a backlog when a stop is asked for then it keeps sending until the backlog is gone")
    func stopDrainsTheBacklog() {
        var machine = Self.machine(spooled: 2)
        machine.stopRequested(deadline: 2000)
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: Self.ok, now: 10)
        #expect(machine.nextAction(now: 10) == .acknowledge(10))
        #expect(machine.nextAction(now: 10) == .send(from: 11))
        machine.completed(11, outcome: Self.ok, now: 20)
        #expect(machine.nextAction(now: 20) == .acknowledge(11))
        #expect(machine.nextAction(now: 20) == .finish)
    }

    @Test("given a retry due after the stop's deadline when a stop is asked for then it finishes at once; due before, it waits for it")
    func stopDuringRetry() {
        var late = Self.machine()
        #expect(late.nextAction(now: 0) == .send(from: 10))
        late.completed(10, outcome: .reply(status: 400), now: 0)
        _ = late.nextAction(now: 0)
        late.stopRequested(deadline: 2000)
        #expect(late.nextAction(now: 1) == .finish)

        var soon = Self.machine()
        #expect(soon.nextAction(now: 0) == .send(from: 10))
        soon.completed(10, outcome: Self.unavailable, now: 0)
        _ = soon.nextAction(now: 0)
        soon.stopRequested(deadline: 2000)
        #expect(soon.nextAction(now: 1) == .sleep(until: 500))
        #expect(soon.nextAction(now: 500) == .send(from: 10))
    }

    @Test("given a request cut short by the stop's deadline when it fails then no outage is said and it finishes")
    func stopCutsARequestShort() {
        var machine = Self.machine()
        machine.stopRequested(deadline: 2000)
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(10, outcome: .failed(HTTPFailure(.noReply, reason: "the uplink is stopping")), now: 2001)
        #expect(machine.nextAction(now: 2001) == .finish)
    }

    @Test("given the spool fails when reading then the failure is reported and the machine finishes")
    func spoolFailureIsFatal() {
        var machine = Self.machine()
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        let damage = SpoolError.corrupt("/x/00000000000000000000.seg", at: nil, "a record's CRC does not match")
        machine.spoolFailed(damage)
        #expect(machine.nextAction(now: 0) == .report(.spoolFailed(damage)))
        #expect(machine.nextAction(now: 0) == .finish)
    }

    @Test("given the spool dropped the oldest when the loop sends a later one then the head moves past the dropped")
    func droppedOldest() {
        var machine = Self.machine(spooled: 5)
        #expect(machine.nextAction(now: 0) == .send(from: 10))
        machine.completed(13, outcome: Self.ok, now: 1)
        #expect(machine.nextAction(now: 1) == .acknowledge(13))
        #expect(machine.nextAction(now: 1) == .send(from: 14))
    }
}
