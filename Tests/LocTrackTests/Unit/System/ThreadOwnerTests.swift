import LocTrackSystem
import Synchronization
import Testing

/// A component's one thread: started once, joined once, from whichever path gets there first.
@Suite("Thread owner: one start, one join", .timeLimit(.minutes(1)))
struct ThreadOwnerTests {
    /// A component that owns a thread, which the thread itself may refer to.
    final class Component: Sendable {
        let thread = ThreadOwner()
        let ran = Atomic(false)

        var hasRun: Bool { ran.load(ordering: .sequentiallyConsistent) }
    }

    @Test("given an owner that never started when it is joined, twice, then nothing waits")
    func joinWithoutStart() {
        let owner = ThreadOwner()
        owner.join()
        owner.join()
        owner.handToReaper()
    }

    @Test("given a started thread when it is joined then its body has returned, and a second join returns at once")
    func joinWaitsForBody() throws {
        let component = Component()
        try component.thread.start(named: "test-owned") { component.ran.store(true, ordering: .sequentiallyConsistent) }
        component.thread.join()
        #expect(component.hasRun)
        component.thread.join()
    }

    @Test("given a thread that joins its own owner when it runs then the join is left to the reaper and the owner's join returns")
    func joinOnItsOwnThread() throws {
        let component = Component()
        let done = try WakeUpPipe()
        try component.thread.start(named: "test-self-join") {
            component.thread.join()  // on itself: handed to ThreadReaper, not a deadlock
            component.ran.store(true, ordering: .sequentiallyConsistent)
            done.wake()
        }
        #expect(try done.wait(milliseconds: 10_000))
        #expect(component.hasRun)
        component.thread.join()  // taken already by the thread itself: returns at once
    }
}
