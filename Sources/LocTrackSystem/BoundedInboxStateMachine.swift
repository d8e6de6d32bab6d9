/// The decisions of a ``BoundedInbox``: what the producers' puts, the consumer's takes and
/// the close do to the queue, and what each caller must do next. A pure value: no lock,
/// no clock, no thread; the inbox applies it under its lock and performs the actions
/// after releasing it (waking the consumer, releasing a dropped element), as
/// swift-async-algorithms' bounded buffer does.
///
/// **When full**, the oldest element is dropped to make room for the new one, never the
/// new one, and never by making the producer wait: a sink's inputs are states and fixes,
/// and the newest matters most (`Sink.take` promises never to wait). The drops are counted
/// until the consumer's next take, which says how many it missed.
package struct BoundedInboxStateMachine<Element> {
    /// What a producer does after ``put(_:)``.
    package enum PutAction {
        /// The first element since the consumer's last take: the consumer may be asleep.
        case wakeConsumer
        /// The consumer is woken for earlier elements already, and takes this one with them.
        case none
        /// The inbox was full: `dropped`, its oldest element, made room (the consumer is
        /// woken already: the inbox was not empty). Released by the producer, outside the lock.
        case droppedOldest(Element)
        /// The inbox is closed: the element was not taken.
        case refused(Element)
    }

    /// What the consumer does after ``take()``.
    package enum TakeAction {
        /// Handle `elements`, oldest first; `dropped` older ones were dropped since the
        /// last take because the inbox was full.
        case handle([Element], dropped: Int)
        /// Nothing is queued: sleep until woken.
        case sleep
        /// The inbox is closed and empty: the consumer ends.
        case finished
    }

    /// What the closer does after ``close(discardingQueued:)``.
    package enum CloseAction {
        /// Wake the consumer, so that it sees the close; release what was discarded
        /// (outside the lock).
        case wakeConsumer(discarded: [Element])
        /// Closed already.
        case none
    }

    /// How many elements may wait; at least 1.
    package let capacity: Int
    /// The queue is `elements[head...]`: a take or a drop moves `head` instead of shifting
    /// every element; the dropped front is cut off once it is as long as the capacity, so
    /// storage stays within twice the capacity.
    private var elements: [Element] = []
    private var head = 0
    private var droppedSinceTake = 0
    /// Whether ``close(discardingQueued:)`` was called.
    package private(set) var isClosed = false

    package init(capacity: Int) {
        precondition(capacity >= 1, "an inbox holds at least one element")
        self.capacity = capacity
    }

    /// How many elements wait.
    package var count: Int { elements.count - head }

    /// A producer hands over `element`.
    package mutating func put(_ element: Element) -> PutAction {
        guard !isClosed else { return .refused(element) }
        let wasEmpty = count == 0
        elements.append(element)
        guard count > capacity else { return wasEmpty ? .wakeConsumer : .none }
        let oldest = elements[head]
        head += 1
        droppedSinceTake += 1
        if head >= capacity {
            elements.removeFirst(head)
            head = 0
        }
        return .droppedOldest(oldest)
    }

    /// The consumer takes everything queued, as one batch (one wake-up, one hand-over).
    package mutating func take() -> TakeAction {
        guard count > 0 else { return isClosed ? .finished : .sleep }
        let taken = Array(elements[head...])
        let dropped = droppedSinceTake
        elements.removeAll(keepingCapacity: true)
        head = 0
        droppedSinceTake = 0
        return .handle(taken, dropped: dropped)
    }

    /// No more puts: the consumer handles what is queued, then finishes; or, when
    /// `discardingQueued`, finishes at its next take (a component released without
    /// finishing stops at once).
    package mutating func close(discardingQueued: Bool) -> CloseAction {
        guard !isClosed else { return .none }
        isClosed = true
        var discarded: [Element] = []
        if discardingQueued {
            discarded = Array(elements[head...])
            elements = []
            head = 0
        }
        return .wakeConsumer(discarded: discarded)
    }
}

extension BoundedInboxStateMachine: Sendable where Element: Sendable {}
extension BoundedInboxStateMachine.PutAction: Sendable where Element: Sendable {}
extension BoundedInboxStateMachine.TakeAction: Sendable where Element: Sendable {}
extension BoundedInboxStateMachine.CloseAction: Sendable where Element: Sendable {}
