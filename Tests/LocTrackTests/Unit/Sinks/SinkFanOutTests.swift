import Foundation
import LocTrack
import LocTrackMonitor
import Synchronization
@testable import LocTrackCLI
@testable import LocTrackFormats
import LocTrackProcess
import LocTrackSinks
import Testing

/// The fan-out that `stream` and `monitor run` share, with in-memory sinks: given sinks,
/// when batches go out, then what each took, what settled, and how the command ends.
@Suite("One fan-out to every sink", .timeLimit(.minutes(1)))
struct SinkFanOutTests {
    typealias F = GeofenceFixtures

    static func batch(_ seconds: ClosedRange<Int64>) -> SinkBatch {
        .gpsd(GPSDBatch(seconds.map { .fix(F.fix(north: 0, second: $0)) }))
    }

    @Test("given three sinks when two batches go out then each sink takes both, in order, without waiting")
    func everySinkTakesEveryBatchInOrder() async {
        let sinks = [InMemorySink(), InMemorySink(), InMemorySink()]
        var fanOut = SinkFanOut(sinks)
        #expect(await fanOut.send(Self.batch(0...2)))
        #expect(await fanOut.send(.gpsd(GPSDBatch([.status(.fixLost(device: nil)), .fix(F.fix(north: 0, second: 3))]))))
        #expect(fanOut.eventsGiven == 5)
        for sink in sinks {
            #expect(sink.fixSeconds.map { $0 - F.start.seconds } == [0, 1, 2, 3])
            #expect(sink.state.withLock { $0.eventsTaken } == 5)
            #expect(sink.state.withLock { $0.waitingTakes } == 0)
        }
    }

    @Test("given a sink that would wait for room beside another when a batch goes out then neither waits")
    func noSinkWaitsForAnother() async {
        let slow = InMemorySink(waitsForRoom: true)
        let other = InMemorySink()
        var fanOut = SinkFanOut([slow, other])
        // The slow sink's room never comes: the send must not depend on it.
        #expect(await fanOut.send(Self.batch(0...0)))
        #expect(other.fixSeconds.count == 1)
        #expect(slow.fixSeconds.count == 1)
        #expect(slow.state.withLock { $0.waitingTakes } == 0)
        #expect(!slow.isHoldingCaller)
    }

    @Test("given a sink alone that waits for room when a batch goes out then the send waits until it has room")
    func aSinkAloneMayWait() async throws {
        let alone = InMemorySink(waitsForRoom: true)
        let sending = Task {
            var fanOut = SinkFanOut([alone])
            return await fanOut.send(Self.batch(0...0))
        }
        while !alone.isHoldingCaller { await Task.yield() }
        #expect(alone.fixSeconds.isEmpty)
        alone.makeRoom()
        #expect(await sending.value)
        #expect(alone.fixSeconds.count == 1)
        #expect(alone.state.withLock { $0.waitingTakes } == 1)
    }

    @Test("given a sink that refuses when batches go out and the command finishes then the others took them and wrote out, and the failure is its")
    func aFailedSinkEndsTheCommandAfterTheOthersWroteOut() async {
        let before = InMemorySink()
        let failed = InMemorySink(refuses: true, outcome: .failed(.outputFailed, message: "cannot write output: EPIPE"))
        let after = InMemorySink()
        var fanOut = SinkFanOut([before, failed, after])
        #expect(await fanOut.send(Self.batch(0...1)) == false)
        #expect(before.fixSeconds.count == 2)
        #expect(after.fixSeconds.count == 2)
        let outcomes = await fanOut.finish(promptly: false)
        #expect(outcomes == [.done, .failed(.outputFailed, message: "cannot write output: EPIPE"), .done])
        for sink in [before, failed, after] { #expect(sink.state.withLock { $0.finishedPromptly } == false) }
        #expect(StreamShutdown.exitCode(outcomes: outcomes, failure: nil, signalled: true) == .outputFailed)
    }

    @Test("given sinks that settle at different paces when asked then the fan-out's settled count is the slowest's")
    func settledIsTheMinimum() async {
        let fast = InMemorySink()
        let slow = InMemorySink()
        var fanOut = SinkFanOut([fast, slow])
        _ = await fanOut.send(Self.batch(0...4))
        fast.settle(through: 5)
        slow.settle(through: 2)
        #expect(fanOut.settledEvents == 2)
        slow.settle(through: 5)
        #expect(fanOut.settledEvents == 5)
        #expect(SinkFanOut([]).settledEvents == 0)
    }

    @Test("given monitor events in two batches when the sinks settle the first then only its events are confirmed")
    func monitorConfirmsOnlyWhatEverySinkSettled() async {
        let stdout = InMemorySink()
        let broker = InMemorySink()
        var fanOut = SinkFanOut([stdout, broker])
        var delivery = EventDelivery()
        // A gpsd batch (3 events), then events 7 and 8, a gpsd batch (2), then event 9.
        _ = await fanOut.send(Self.batch(0...2))
        _ = await fanOut.send(.monitor([]))
        delivery.sent([7, 8], eventsThrough: fanOut.eventsGiven + 2)
        _ = await fanOut.send(Self.batch(3...4))
        delivery.sent([9], eventsThrough: fanOut.eventsGiven + 1)
        #expect(delivery.settledSequence(fanOut.settledEvents) == 0)
        stdout.settle(through: 5)
        broker.settle(through: 4)
        #expect(delivery.settledSequence(fanOut.settledEvents) == 0, "event 8 counts to 5: the broker has 4")
        broker.settle(through: 5)
        #expect(delivery.settledSequence(fanOut.settledEvents) == 8)
        stdout.settle(through: 8)
        broker.settle(through: 8)
        #expect(delivery.settledSequence(fanOut.settledEvents) == 9)
        #expect(delivery.settledSequence(fanOut.settledEvents) == 9, "stays confirmed")
    }

    @Test("given regions and monitor events when counted then a regions snapshot counts no event")
    func eventCounts() {
        #expect(SinkBatch.regions(["home": RegionPresence(name: "Home", inside: true)]).eventCount == 0)
        #expect(Self.batch(0...3).eventCount == 4)
        #expect(SinkBatch.monitor([]).eventCount == 0)
    }
}
