import Synchronization

/// Inputs for a thread: any thread puts, never waiting, and the one consumer thread takes
/// everything queued at once and sleeps in `poll()` on a ``WakeUpPipe`` when nothing is.
/// Bounded: when full, the oldest input is dropped for the new one, and the consumer's
/// next take says how many it missed (``BoundedInboxStateMachine``, which decides; this
/// class applies its decisions under a short lock and acts after releasing it).
///
/// One wake-up per batch: only a put into an empty inbox writes to the pipe, and a
/// consumer that takes everything before it sleeps again misses none (the pipe stays
/// readable until it is drained, and the consumer drains it before it takes).
package final class BoundedInbox<Element: Sendable>: Sendable {
    /// What ``put(_:)`` did with an input.
    package enum PutOutcome {
        case queued
        /// The inbox was full: `dropped`, the oldest input, made room for this one.
        case droppedOldest(Element)
        /// The inbox is closed: the input was not taken.
        case refused
    }

    /// How many inputs the inbox holds at most.
    package let capacity: Int
    private let machine: Mutex<BoundedInboxStateMachine<Element>>
    private let wakeUps: WakeUpPipe

    /// An empty inbox for at most `capacity` inputs.
    /// - Throws: pipe(2)'s `Errno` (the process is out of descriptors).
    package init(capacity: Int) throws(Errno) {
        self.capacity = capacity
        machine = Mutex(BoundedInboxStateMachine(capacity: capacity))
        wakeUps = try WakeUpPipe()
    }

    /// Whether ``close(discardingQueued:)`` was called.
    package var isClosed: Bool { machine.withLock { $0.isClosed } }

    /// Queues `element` and wakes the consumer. Never waits.
    @discardableResult
    package func put(_ element: Element) -> PutOutcome {
        switch machine.withLock({ $0.put(element) }) {
        case .wakeConsumer:
            wakeUps.wake()
            return .queued
        case .none:
            return .queued
        case .droppedOldest(let dropped):
            return .droppedOldest(dropped)
        case .refused:
            return .refused
        }
    }

    /// Everything queued, without waiting (see ``BoundedInboxStateMachine/TakeAction``).
    package func take() -> BoundedInboxStateMachine<Element>.TakeAction {
        machine.withLock { $0.take() }
    }

    /// Sleeps until an input is put, the inbox is closed, or `milliseconds` pass (-1: no
    /// limit). A failed `poll()` (ENOMEM) returns early, as a spurious wake-up: the
    /// consumer takes, finds nothing, and sleeps again.
    /// - Returns: false on timeout.
    @discardableResult
    package func wait(milliseconds: Int32) -> Bool {
        (try? wakeUps.wait(milliseconds: milliseconds)) ?? true
    }

    /// The next inputs, sleeping until there are some or the inbox is closed: never
    /// ``BoundedInboxStateMachine/TakeAction/sleep``.
    package func next() -> BoundedInboxStateMachine<Element>.TakeAction {
        while true {
            let action = take()
            guard case .sleep = action else { return action }
            wait(milliseconds: -1)
        }
    }

    /// Takes no more inputs and wakes the consumer, which handles what is queued and then
    /// finishes, or, `discardingQueued`, finishes at once. Later calls do nothing.
    package func close(discardingQueued: Bool = false) {
        switch machine.withLock({ $0.close(discardingQueued: discardingQueued) }) {
        case .wakeConsumer(let discarded):
            wakeUps.wake()
            withExtendedLifetime(discarded) {}  // released here, after the lock
        case .none:
            break
        }
    }
}
