import LocTrackSpool
import Synchronization
@testable import LocTrackTraccar
import Testing

@Suite("Uploader loop: the spool drained through a transport, with a clock of the test's", .timeLimit(.minutes(1)))
struct UploaderLoopTests {
    static let server = "traccar.test:5055"

    @Test("given a backlog of 1,000 positions when the server takes each then all arrive once, in order, and the spool is empty")
    func drainsInOrder() throws {
        let harness = try UplinkHarness()
        #expect(harness.publish(1000))
        harness.step()
        #expect(harness.server.stored == (0..<1000).map { "p\($0)" })
        #expect(harness.core.spool.pendingCount == 0)
        #expect(harness.wakeAt == .max)
        #expect(harness.statuses.isEmpty)
    }

    @Test("given an outage of 503s, a refused connection and a reply-less close when the server is back then nothing is lost, the oldest goes first, the outage is said once and a duplicate counted")
    func outageThenBack() throws {
        let harness = try UplinkHarness()
        harness.server.answer([InMemoryServer.unavailable, InMemoryServer.unavailable, InMemoryServer.refused, InMemoryServer.closedWithoutReply])
        harness.publish(2)
        harness.step(at: 0)
        #expect(harness.server.requests == ["p0"])
        harness.publish(1)
        // Waiting for the retry: the new position is not sent before the head.
        harness.step(at: 100)
        #expect(harness.server.requests == ["p0"])
        harness.stepAtDeadlines(4)
        #expect(harness.server.requests == ["p0", "p0", "p0", "p0", "p0", "p1", "p2"])
        #expect(harness.server.stored == ["p0", "p0", "p1", "p2"])
        #expect(harness.statuses == [
            .waiting(server: Self.server, reason: "HTTP 503", retryIn: .milliseconds(500)), .resumed(server: Self.server),
        ])
        #expect(harness.loop.machine.possibleDuplicates == 1)
        #expect(harness.core.possibleDuplicates.load(ordering: .relaxed) == 1)
        #expect(harness.core.spool.pendingCount == 0)
        // 0.5 + 1 + 2 + 4 s of backoff, the longest jitter.
        #expect(harness.clock.read() == 7500)
    }

    @Test("given an unknown device for a minute when the device is added then every position arrives in order and none was dropped")
    func unknownDeviceForAMinute() throws {
        let harness = try UplinkHarness()
        harness.server.answer(InMemoryServer.unknownDevice, times: 3)
        harness.publish(2)
        harness.step(at: 0)
        #expect(harness.wakeAt == 30_000)
        for second in 1...60 where second % 10 == 0 {
            harness.publish(1)
            harness.step(at: Int64(second) * 1000)
        }
        #expect(harness.server.requests == ["p0", "p0", "p0"])
        harness.step(at: 90_000)
        #expect(harness.server.stored == (0..<8).map { "p\($0)" })
        #expect(harness.statuses == [
            .unknownDevice(deviceID: "car1", probeEvery: .seconds(30)), .resumed(server: Self.server),
        ])
    }

    @Test("given positions the server never took when the uplink is stopped and started again on the same spool then the next start sends them first")
    func backlogSurvivesARestart() throws {
        let root = try UplinkHarness.makeTemporaryRoot()
        defer { UplinkHarness.remove(root) }
        do {
            let first = try UplinkHarness(root: root)
            first.server.answer(InMemoryServer.unavailable, times: 100)
            first.publish(3)
            first.step(at: 0)
            first.requestStop(deadline: 10)
            #expect(first.isFinished)
            #expect(first.core.spool.pendingCount == 3)
        }
        let restarted = try UplinkHarness(root: root)
        restarted.publish(1, from: 3)
        restarted.step(at: 0)
        #expect(restarted.server.stored == ["p0", "p1", "p2", "p3"])
        #expect(restarted.core.spool.pendingCount == 0)
    }

    @Test("given a stop with a backlog and a server that answers when the deadline passes mid-backlog then it finishes with the rest spooled and made durable")
    func stopAtTheDeadline() throws {
        let harness = try UplinkHarness()
        let clock = harness.clock
        harness.server.onRequest = { clock.advance(10) }
        harness.publish(10)
        harness.core.requestStop(deadline: 35)
        harness.step()
        #expect(harness.isFinished)
        #expect(harness.server.stored == ["p0", "p1", "p2", "p3"])
        #expect(harness.core.spool.pendingCount == 6)
    }

    @Test("given a spool limit when publishing goes past it then the oldest are dropped, said, and the rest arrive in order")
    func spoolLimitDropsTheOldest() throws {
        // Each record is 8 header bytes, 4 of QoS, retain and topic length, "osmand" and "pN".
        let harness = try UplinkHarness(spoolLimitBytes: 5 * 20)
        #expect(harness.publish(8))
        #expect(harness.statuses == [.droppedOldest(count: 3, limitBytes: 100)])
        harness.step()
        #expect(harness.server.stored == ["p3", "p4", "p5", "p6", "p7"])
    }
}

@Suite("Uploader loop: a stop asked for during a long drain", .timeLimit(.minutes(1)))
struct UploaderLoopStopTests {
    @Test("given a backlog draining in one wake-up when the program asks to stop meanwhile then the loop stops at the deadline, not at the backlog's end")
    func stopDuringADrain() throws {
        let harness = try UplinkHarness()
        let clock = harness.clock
        let core = harness.core
        var requests = 0
        harness.server.onRequest = {
            clock.advance(10)
            requests += 1
            // The program's finish(drainingFor: 50 ms), from its own thread, during the 5th request.
            if requests == 5 { core.requestStop(deadline: clock.read() + 50) }
        }
        harness.publish(100)
        harness.step()
        #expect(harness.isFinished)
        #expect(harness.server.stored == (0..<10).map { "p\($0)" })
        #expect(harness.core.spool.pendingCount == 90)
    }
}

extension UploaderLoopStopTests {
    @Test("given positions appended while a request is under way when the program then asks to stop then the stop drains them too")
    func stopDrainsWhatWasAppendedDuringARequest() throws {
        let harness = try UplinkHarness()
        let core = harness.core
        var requests = 0
        harness.server.onRequest = {
            requests += 1
            // The program, during the first request: two more positions, then finish.
            if requests == 1 {
                _ = core.publish([Array("p1".utf8), Array("p2".utf8)])
                core.requestStop(deadline: 1000)
            }
        }
        harness.publish(1)
        harness.step()
        #expect(harness.isFinished)
        #expect(harness.server.stored == ["p0", "p1", "p2"])
        #expect(harness.core.spool.pendingCount == 0)
    }
}
