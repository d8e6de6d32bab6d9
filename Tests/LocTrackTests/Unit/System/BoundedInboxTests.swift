import LocTrackSystem
import Synchronization
import Testing

/// The inbox between real threads: a consumer thread sleeping in `poll()` on its pipe and
/// producers on others. Every wait has a deadline; nothing is timed for correctness.
@Suite("Bounded inbox: threads put, one thread takes", .timeLimit(.minutes(1)))
struct BoundedInboxTests {
    /// A consumer on a thread of its own: takes until the inbox finishes, then says so.
    final class Consumer: Sendable {
        let received = Mutex<[Int]>([])
        let dropped = Mutex(0)
        private let done: WakeUpPipe
        private let thread = ThreadOwner()

        init(_ inbox: BoundedInbox<Int>) throws {
            let done = try WakeUpPipe()
            self.done = done
            try thread.start(named: "test-consumer") { [self] in
                while case .handle(let elements, let missed) = inbox.next() {
                    self.received.withLock { $0 += elements }
                    self.dropped.withLock { $0 += missed }
                }
                done.wake()
            }
        }

        /// Whether the consumer saw the inbox finish within `milliseconds`; joins it then.
        func finished(within milliseconds: Int32) throws -> Bool {
            guard try done.wait(milliseconds: milliseconds) else { return false }
            thread.join()
            return true
        }
    }

    @Test("given a consumer asleep when two producer threads put 2000 in all and the inbox closes then it gets every one, each producer's in order, and finishes")
    func everyElementArrives() throws {
        let inbox = try BoundedInbox<Int>(capacity: 4096)
        let consumer = try Consumer(inbox)
        let first = ThreadOwner(), second = ThreadOwner()
        try first.start(named: "test-producer-1") { for element in 0..<1000 { inbox.put(element) } }
        try second.start(named: "test-producer-2") { for element in 1000..<2000 { inbox.put(element) } }
        first.join()
        second.join()
        inbox.close()
        #expect(try consumer.finished(within: 10_000))
        let received = consumer.received.withLock { $0 }
        #expect(received.filter { $0 < 1000 } == Array(0..<1000))
        #expect(received.filter { $0 >= 1000 } == Array(1000..<2000))
        #expect(consumer.dropped.withLock { $0 } == 0)
    }

    @Test("given a full inbox nobody takes when more are put then no put waits: the oldest are handed back and the newest kept")
    func fullNeverWaits() throws {
        let inbox = try BoundedInbox<Int>(capacity: 3)
        var dropped: [Int] = []
        for element in 0..<10 {
            if case .droppedOldest(let oldest) = inbox.put(element) { dropped.append(oldest) }
        }
        #expect(dropped == Array(0..<7))
        guard case .handle(let kept, let missed) = inbox.take() else {
            Issue.record("nothing to take")
            return
        }
        #expect(kept == [7, 8, 9])
        #expect(missed == 7)
    }

    @Test("given a consumer thread busy with its first input when ten more come into an inbox of three then it next gets the newest three and is told seven were dropped")
    func busyConsumerMissesTheOldest() throws {
        let inbox = try BoundedInbox<Int>(capacity: 3)
        let tookFirst = try WakeUpPipe(), release = try WakeUpPipe(), done = try WakeUpPipe()
        let takes = Mutex<[(elements: [Int], dropped: Int)]>([])
        let consumer = ThreadOwner()
        try consumer.start(named: "test-busy") {
            while case .handle(let elements, let dropped) = inbox.next() {
                takes.withLock { $0.append((elements, dropped)) }
                if elements == [0] {
                    tookFirst.wake()
                    _ = try? release.wait(milliseconds: 10_000)  // busy until the test lets it go
                }
            }
            done.wake()
        }
        inbox.put(0)
        #expect(try tookFirst.wait(milliseconds: 10_000))
        for element in 1...10 { inbox.put(element) }
        inbox.close()
        release.wake()
        #expect(try done.wait(milliseconds: 10_000))
        consumer.join()
        let seen = takes.withLock { $0 }
        #expect(seen.map(\.elements) == [[0], [8, 9, 10]])
        #expect(seen.map(\.dropped) == [0, 7])
    }

    @Test("given a consumer asleep when the inbox is closed from another thread then it wakes and finishes")
    func closeWakesSleeper() throws {
        let inbox = try BoundedInbox<Int>(capacity: 1)
        let consumer = try Consumer(inbox)
        #expect(try !consumer.finished(within: 0))
        let closer = ThreadOwner()
        try closer.start(named: "test-closer") { inbox.close() }
        closer.join()
        #expect(try consumer.finished(within: 10_000))
    }

    @Test("given an empty open inbox when the consumer waits with a limit then it returns at the limit, and a closed inbox refuses a put")
    func waitTimesOutAndCloseRefuses() throws {
        let inbox = try BoundedInbox<Int>(capacity: 1)
        #expect(!inbox.wait(milliseconds: 1))
        inbox.close(discardingQueued: true)
        guard case .refused = inbox.put(1) else {
            Issue.record("a closed inbox took an element")
            return
        }
        guard case .finished = inbox.take() else {
            Issue.record("a closed empty inbox did not finish")
            return
        }
    }
}
