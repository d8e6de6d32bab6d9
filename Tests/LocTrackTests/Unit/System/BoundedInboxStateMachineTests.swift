import LocTrackSystem
import Testing

/// The inbox's decisions alone: no lock, no thread, no pipe.
@Suite("Bounded inbox state machine: puts, takes, drops and the close", .timeLimit(.minutes(1)))
struct BoundedInboxStateMachineTests {
    typealias Machine = BoundedInboxStateMachine<Int>

    /// A machine of `capacity` holding `elements`, taken by nobody yet.
    static func holding(_ elements: [Int], capacity: Int = 4) -> Machine {
        var machine = Machine(capacity: capacity)
        for element in elements { _ = machine.put(element) }
        return machine
    }

    @Test("given an empty inbox when nothing is put then the consumer sleeps")
    func emptySleeps() {
        var machine = Machine(capacity: 4)
        #expect(machine.take().isSleep)
    }

    @Test("given an empty inbox when two elements are put then only the first wakes the consumer")
    func firstPutWakes() {
        var machine = Machine(capacity: 4)
        #expect(machine.put(1).isWakeConsumer)
        #expect(machine.put(2).isNone)
        #expect(machine.count == 2)
    }

    @Test("given queued elements when the consumer takes then it gets them all, oldest first, and the next put wakes it again")
    func takeAllThenWakeAgain() {
        var machine = Self.holding([1, 2, 3])
        #expect(machine.take().handled == [1, 2, 3])
        #expect(machine.take().isSleep)
        #expect(machine.put(4).isWakeConsumer)
    }

    @Test("given a full inbox when one more is put then the oldest is dropped and handed back, and the take says one was missed")
    func fullDropsOldest() {
        var machine = Self.holding([1, 2, 3], capacity: 3)
        #expect(machine.put(4).droppedOldest == 1)
        #expect(machine.count == 3)
        let taken = machine.take()
        #expect(taken.handled == [2, 3, 4])
        #expect(taken.dropped == 1)
    }

    @Test("given a consumer that never takes when a thousand are put then the newest are kept and every drop is counted once")
    func stalledConsumerKeepsNewest() {
        var machine = Machine(capacity: 2)
        var droppedByPut: [Int] = []
        for element in 0..<1000 {
            if let dropped = machine.put(element).droppedOldest { droppedByPut.append(dropped) }
        }
        #expect(droppedByPut == Array(0..<998))
        let taken = machine.take()
        #expect(taken.handled == [998, 999])
        #expect(taken.dropped == 998)
        #expect(machine.put(1000).isWakeConsumer)
        #expect(machine.take().dropped == 0)
    }

    @Test("given queued elements when the inbox is closed then the consumer takes them, then finishes, and a later put is refused")
    func closeDrains() {
        var machine = Self.holding([1, 2])
        #expect(machine.close(discardingQueued: false).discarded == [])
        #expect(machine.isClosed)
        #expect(machine.put(3).refused == 3)
        #expect(machine.take().handled == [1, 2])
        #expect(machine.take().isFinished)
        #expect(machine.take().isFinished)
    }

    @Test("given queued elements when the inbox is closed discarding them then they are handed back and the consumer finishes at once")
    func closeDiscards() {
        var machine = Self.holding([1, 2])
        #expect(machine.close(discardingQueued: true).discarded == [1, 2])
        #expect(machine.take().isFinished)
    }

    @Test("given a closed inbox when it is closed again then nothing happens, even discarding")
    func closeTwice() {
        var machine = Self.holding([1])
        _ = machine.close(discardingQueued: false)
        #expect(machine.close(discardingQueued: true).discarded == nil)
        #expect(machine.take().handled == [1])
    }
}

// What a test reads of an action, so that an expectation is one comparison.
extension BoundedInboxStateMachine.PutAction {
    var isWakeConsumer: Bool { if case .wakeConsumer = self { true } else { false } }
    var isNone: Bool { if case .none = self { true } else { false } }
    var droppedOldest: Element? { if case .droppedOldest(let element) = self { element } else { nil } }
    var refused: Element? { if case .refused(let element) = self { element } else { nil } }
}

extension BoundedInboxStateMachine.TakeAction {
    var handled: [Element]? { if case .handle(let elements, _) = self { elements } else { nil } }
    var dropped: Int? { if case .handle(_, let dropped) = self { dropped } else { nil } }
    var isSleep: Bool { if case .sleep = self { true } else { false } }
    var isFinished: Bool { if case .finished = self { true } else { false } }
}

extension BoundedInboxStateMachine.CloseAction {
    /// What the close discarded; nil when it was closed already.
    var discarded: [Element]? { if case .wakeConsumer(let discarded) = self { discarded } else { nil } }
}
