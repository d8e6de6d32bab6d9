/// The pure core of ``SerialProcessor``: what to do on each event, with no locks
/// and no side effects. Its actions are applied by the processor outside the lock.
struct SerialProcessorStateMachine<Input> {
    typealias Waiter = UnsafeContinuation<Input?, Never>

    enum SubmitAction {
        /// The worker was waiting: hand it the input directly.
        case resume(Waiter, Input)
        case enqueued
        /// The policy dropped an input (the new one or the oldest queued one).
        case dropped(Input)
        /// ``SerialProcessor/finish()`` or ``SerialProcessor/cancel()`` came first.
        case rejected(Input)
    }

    enum NextAction {
        case resume(Waiter, Input?)
        case suspend
    }

    private let policy: SerialProcessorBufferingPolicy
    private var queue = RingBuffer<Input>()
    private var waiter: Waiter?
    private var isFinished = false
    private(set) var droppedCount = 0

    init(policy: SerialProcessorBufferingPolicy) {
        self.policy = policy
    }

    var queuedCount: Int { queue.count }

    mutating func submit(_ input: Input) -> SubmitAction {
        if isFinished { return .rejected(input) }
        if let waiter {
            self.waiter = nil
            return .resume(waiter, input)
        }
        switch policy.kind {
        case .unbounded:
            queue.append(input)
            return .enqueued
        case .dropNewest(let limit):
            if queue.count >= limit {
                droppedCount += 1
                return .dropped(input)
            }
            queue.append(input)
            return .enqueued
        case .dropOldest(let limit):
            queue.append(input)
            if queue.count > limit, let oldest = queue.popFirst() {
                droppedCount += 1
                return .dropped(oldest)
            }
            return .enqueued
        }
    }

    /// The worker asks for its next input.
    mutating func next(_ waiter: Waiter) -> NextAction {
        if let input = queue.popFirst() { return .resume(waiter, input) }
        if isFinished { return .resume(waiter, nil) }
        self.waiter = waiter
        return .suspend
    }

    /// No more input: what is queued is still processed. Returns a waiter to end.
    mutating func finish() -> Waiter? {
        isFinished = true
        defer { waiter = nil }
        return queue.isEmpty ? waiter : nil
    }

    /// No more input, and what is queued is dropped. Returns a waiter to end.
    mutating func cancel() -> Waiter? {
        isFinished = true
        droppedCount += queue.count
        queue.removeAll()
        defer { waiter = nil }
        return waiter
    }
}

/// A FIFO queue with amortised O(1) append and removal at the front.
struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head >= 1024 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        } else if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        }
        return element
    }

    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}
