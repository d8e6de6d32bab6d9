import Glibc
import LocTrack
@testable import LocTrackCLI
import Testing
@testable import LocTrackFormats
import LocTrackProcess
@testable import LocTrackSinks

/// ``TrackWriterStateMachine`` on its own: the exact actions for each input.
@Suite("Track writer state machine: actions", .timeLimit(.minutes(1)))
struct RecordWriterStateMachineTests {
    let march2 = WriterFrames.march1 + 86_400

    func machine(syncSeconds: Double = 10) throws -> TrackWriterStateMachine {
        TrackWriterStateMachine(names: TrackFileNames(pattern: try TrackPathPattern("%F.gpx")),
                                syncSeconds: syncSeconds, now: 0)
    }

    @Test("given a read across midnight when each action succeeds then open, append, rotate, append, then a wait until the sync deadline")
    func actionsAcrossMidnight() throws {
        var machine = try machine()
        let frames = [WriterFrames.frame(march2 - 1, "a"), WriterFrames.frame(march2, "b", startsSegment: true),
                      WriterFrames.frame(march2 + 1, "c")]
        #expect(machine.start == .wait(until: nil))
        #expect(machine.framesRead(frames, now: 500) == .open("2026-03-01.gpx"))
        #expect(machine.fileOpened(now: 501) == .append(frames[0..<1]))
        #expect(machine.completed(now: 502) == .rotate(to: "2026-03-02.gpx"))
        #expect(machine.fileOpened(now: 503) == .append(frames[1..<3]))
        #expect(machine.completed(now: 504) == .wait(until: 10_000))
        #expect(machine.deadlinePassed(now: 10_000) == .sync)
        #expect(machine.completed(now: 10_020) == .wait(until: nil))
        #expect(machine.inputEnded() == .close)
        #expect(machine.completed(now: 20_000) == .exit(.success))
    }

    @Test("given --sync 10 when a read comes 10 s after the start then the batch is synced with it")
    func syncAfterBatchWhenDue() throws {
        var machine = try machine()
        let frames = [WriterFrames.frame(march2, "a")]
        #expect(machine.framesRead(frames, now: 10_000) == .open("2026-03-02.gpx"))
        #expect(machine.fileOpened(now: 10_000) == .append(frames[...]))
        #expect(machine.completed(now: 10_001) == .sync)
        #expect(machine.completed(now: 10_002) == .wait(until: nil))
        // The next read's deadline counts from that sync.
        #expect(machine.framesRead([WriterFrames.frame(march2 + 1, "b")], now: 11_000) == .append([WriterFrames.frame(march2 + 1, "b")][...]))
        #expect(machine.completed(now: 11_000) == .wait(until: 20_001))
    }

    @Test("given an open failure when reported then the machine exits with its code and nothing else")
    func failureExits() throws {
        var machine = try machine()
        #expect(machine.framesRead([WriterFrames.frame(march2, "a")], now: 1) == .open("2026-03-02.gpx"))
        #expect(machine.failed(TrackFileError(path: "2026-03-02.gpx", kind: .notContinuable("not GPX"))) == .exit(.dataError))
    }

    @Test("given a --sync too long for the clock when records wait then the deadline is the clock's end, not an overflow")
    func hugeSyncNeverDue() throws {
        var machine = try machine(syncSeconds: 1e300)
        let frames = [WriterFrames.frame(march2, "a")]
        _ = machine.framesRead(frames, now: 1)
        _ = machine.fileOpened(now: 1)
        #expect(machine.completed(now: 2) == .wait(until: .max))
    }

    @Test("given records within one second when named then the pattern is formatted once for that second")
    func namesCachedPerSecond() {
        final class Count { var value = 0 }
        let count = Count()
        var names = TrackFileNames { seconds in
            count.value += 1
            return "day-\(seconds / 86_400)"
        }
        let seconds: [Int64] = [100, 100, 100, 101, 101, 100]
        #expect(seconds.map { names.name(for: $0) } == Array(repeating: "day-0", count: 6))
        #expect(count.value == 3)  // 100, 101, 100 again: one second is kept
    }
}
