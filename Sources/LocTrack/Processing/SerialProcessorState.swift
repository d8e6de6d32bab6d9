import LocTrackSystem
/// The pure core of ``SerialProcessor``: the consumers' queues, the reader's
/// end, and backpressure, with no locks and no side effects. Each call returns
/// what to do (resume a consumer, pause or resume or stop the reader); the
/// processor does it outside its lock.
struct SerialProcessorState {
    /// What a waiting consumer is resumed with.
    enum Delivery {
        /// Everything that queued for it since it last asked, oldest first (never empty).
        case events([GPSDEvent])
        /// The session was finished, the reader stopped, or the consumer was cancelled.
        case end
        case failure(LocTrackError)
    }

    typealias Waiter = UnsafeContinuation<Delivery, Never>

    struct Subscriber {
        let options: SubscriberOptions
        var queue: [GPSDEvent] = []
        /// Events handed to the consumer that it has not yet said it has taken.
        var outstanding = 0
        var waiter: Waiter?
        var awaitsPoll: Duration?
        /// Events its buffering policy dropped.
        var dropped = 0
        /// It was handed the end: it leaves the table.
        var isFinished = false

        /// Every event given to this consumer and not yet taken: in this queue or in its iterator.
        var waiting: Int { queue.count + outstanding }
        var isBehind: Bool { options.bufferingPolicy.backpressureLimit.map { waiting >= $0 } ?? false }
        var hasCaughtUp: Bool { options.bufferingPolicy.backpressureLimit.map { waiting <= $0 / 2 } ?? true }
    }

    enum ReaderAction: Equatable {
        case none, pause, resume, stop
    }

    /// A consumer to resume, and with what. A struct, not a tuple: see ``SubscriberTable``.
    struct Resumption {
        let waiter: Waiter
        let delivery: Delivery
    }

    /// The consumers one batch resumes. Most processes have one consumer: it is kept
    /// without allocating an array, one malloc and its growth code fewer per batch.
    struct Resumptions {
        private var first: Resumption?
        private var others: [Resumption] = []

        var count: Int { (first == nil ? 0 : 1) + others.count }
        var isEmpty: Bool { first == nil }

        mutating func append(_ resumption: Resumption) {
            if first == nil { first = resumption } else { others.append(resumption) }
        }

        /// Resumes them all, oldest consumer first; call outside the processor's lock.
        func resumeAll() {
            guard let first else { return }
            first.waiter.resume(returning: first.delivery)
            for other in others { other.waiter.resume(returning: other.delivery) }
        }
    }

    private(set) var subscribers = SubscriberTable()
    private var nextID: UInt64 = 0
    /// How the reader ended, once it has; each consumer gets it after its queue.
    private var ending: Delivery?
    /// No new consumers: the reader ended or its last consumer left.
    private(set) var isClosed = false
    private(set) var readerPaused = false

    // MARK: Consumers come and go

    /// A new consumer, or nil when this processor's reader has ended or is ending.
    mutating func add(_ options: SubscriberOptions) -> UInt64? {
        guard !isClosed else { return nil }
        defer { nextID += 1 }
        subscribers.add(Subscriber(options: options, awaitsPoll: options.latestNoOlderThan), id: nextID)
        return nextID
    }

    /// A consumer left (its iterator ended or its task was cancelled).
    mutating func remove(_ id: UInt64) -> (waiter: Waiter?, reader: ReaderAction) {
        guard let subscriber = subscribers.removeValue(forKey: id) else { return (nil, .none) }
        if subscribers.isEmpty && !isClosed {
            isClosed = true
            return (subscriber.waiter, .stop)
        }
        return (subscriber.waiter, resumeIfCaughtUp())
    }

    // MARK: The reader submits

    /// Takes one batch from the reader, in order; returns the consumers to resume.
    ///
    /// Every consumer is updated in place (``SubscriberTable/updateEach(_:)``): no list
    /// of ids, no lookup by id and no copy of a consumer per event. This runs once per
    /// fix at 1 Hz, where the code it touches costs more than the work it does.
    mutating func submit(_ batch: [ReaderEvent]) -> (resumptions: Resumptions, reader: ReaderAction) {
        for event in batch {
            switch event {
            case .fix(let fix):
                subscribers.updateEach { $0.queue.append(.fix(fix)) }
            case .provisional(let fix):
                subscribers.updateEach { if $0.options.includesProvisionalFixes { $0.queue.append(.fix(fix)) } }
            case .status(let status):
                subscribers.updateEach { if $0.options.includesStatuses { $0.queue.append(.status(status)) } }
            case .sky(let view):
                subscribers.updateEach { if $0.options.includesStatuses { $0.queue.append(.sky(view)) } }
            case .polled(let fixes, let gpsdTime):
                deliverPolled(fixes, gpsdTime: gpsdTime)
            case .failed(let error):
                end(with: .failure(error))
            case .ended:
                end(with: .end)
            }
        }
        var resumptions = Resumptions()
        let ending = self.ending
        subscribers.updateEach { subscriber in
            Self.applyBufferingPolicy(to: &subscriber)
            if let resumption = Self.takeDelivery(from: &subscriber, ending: ending) { resumptions.append(resumption) }
        }
        if ending != nil { subscribers.removeAll { $0.isFinished } }
        guard !readerPaused, subscribers.contains(where: \.isBehind) else { return (resumptions, .none) }
        readerPaused = true
        return (resumptions, .pause)
    }

    private mutating func deliverPolled(_ fixes: [Fix], gpsdTime: Timestamp?) {
        let oldestFirst = fixes.sorted { $0.time < $1.time }
        subscribers.updateEach { subscriber in
            guard let maximumAge = subscriber.awaitsPoll else { return }
            subscriber.awaitsPoll = nil
            for fix in oldestFirst where Self.isFresh(fix, gpsdTime: gpsdTime, maximumAge: maximumAge) {
                subscriber.queue.append(.fix(fix))
            }
        }
    }

    private mutating func end(with delivery: Delivery) {
        guard ending == nil else { return }
        ending = delivery
        isClosed = true
    }

    /// `.bufferingNewest` and `.bufferingOldest` keep at most their limit queued here.
    /// Events the iterator already holds (``Subscriber/outstanding``) do not count: they
    /// cannot be dropped, and counting them dropped everything that arrived while the
    /// consumer handled its batch (for `.bufferingNewest(1)`, the newest fix it should get next).
    private static func applyBufferingPolicy(to subscriber: inout Subscriber) {
        guard let limit = subscriber.options.bufferingPolicy.dropLimit else { return }
        let excess = subscriber.queue.count - limit
        guard excess > 0 else { return }
        if subscriber.options.bufferingPolicy.dropsOldest {
            subscriber.queue.removeFirst(excess)
        } else {
            subscriber.queue.removeLast(excess)
        }
        subscriber.dropped += excess
    }

    // MARK: Consumers ask

    /// A consumer took `acknowledged` events since it last asked and wants more.
    mutating func next(_ id: UInt64, acknowledging acknowledged: Int, waiter: Waiter) -> (resumption: (Waiter, Delivery)?, reader: ReaderAction) {
        let found: Void? = subscribers.update(id) { subscriber in
            subscriber.outstanding = max(0, subscriber.outstanding - acknowledged)
            subscriber.waiter = waiter
        }
        guard found != nil else { return ((waiter, .end), .none) }
        let reader = resumeIfCaughtUp()  // before the delivery below counts as outstanding
        let ending = self.ending
        guard let resumption = subscribers.update(id, { Self.takeDelivery(from: &$0, ending: ending) }) ?? nil else {
            return (nil, reader)
        }
        if ending != nil { subscribers.removeAll { $0.isFinished } }
        return ((resumption.waiter, resumption.delivery), reader)
    }

    /// The waiting consumer's delivery, if it waits and has one. A consumer handed the
    /// end is marked finished, for the caller to remove: the end is the last thing it gets.
    private static func takeDelivery(from subscriber: inout Subscriber, ending: Delivery?) -> Resumption? {
        guard let waiter = subscriber.waiter else { return nil }
        if !subscriber.queue.isEmpty {
            let events = subscriber.queue
            subscriber.queue = []
            subscriber.outstanding += events.count
            subscriber.waiter = nil
            return Resumption(waiter: waiter, delivery: .events(events))
        }
        guard let ending else { return nil }
        subscriber.waiter = nil
        subscriber.isFinished = true
        return Resumption(waiter: waiter, delivery: ending)
    }

    private mutating func resumeIfCaughtUp() -> ReaderAction {
        guard readerPaused, subscribers.allSatisfy(\.hasCaughtUp) else { return .none }
        readerPaused = false
        return .resume
    }

    /// A polled fix is fresh when gpsd's clock says it is at most `maximumAge` old
    /// (and not more than a second in the future: a receiver with a wrong date is not fresh).
    static func isFresh(_ fix: Fix, gpsdTime: Timestamp?, maximumAge: Duration) -> Bool {
        guard let gpsdTime else { return false }
        let age = gpsdTime.seconds(since: fix.time)
        return age >= -1 && age <= maximumAge.seconds
    }
}

/// The consumers by id: a few entries in an array, searched linearly. A process has one
/// to a handful of consumers, and the reader updates each one for every batch: a
/// dictionary would hash the id every time and bring its hashing and probing code into
/// every wake-up (on a 1 Hz stream, code that must come back into the caches each time
/// costs more than the work it does).
struct SubscriberTable {
    typealias Subscriber = SerialProcessorState.Subscriber

    /// A struct, not a tuple: a tuple's copy goes through the runtime's generic
    /// tuple witness, more code on every batch (see docs/performance.md).
    private struct Entry {
        let id: UInt64
        var subscriber: Subscriber
    }
    private var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// A copy of the subscriber `id` (for tests and diagnostics).
    subscript(id: UInt64) -> Subscriber? {
        guard let index = index(of: id) else { return nil }
        return entries[index].subscriber
    }

    mutating func add(_ subscriber: Subscriber, id: UInt64) {
        entries.append(Entry(id: id, subscriber: subscriber))
    }

    /// Calls `body` on every subscriber in place (never a copy: a copy would make an
    /// append copy its queue), oldest first.
    mutating func updateEach(_ body: (inout Subscriber) -> Void) {
        for index in entries.indices { body(&entries[index].subscriber) }
    }

    /// Calls `body` on the subscriber `id` in place; nil when there is none.
    mutating func update<Result>(_ id: UInt64, _ body: (inout Subscriber) -> Result) -> Result? {
        guard let index = index(of: id) else { return nil }
        return body(&entries[index].subscriber)
    }

    mutating func removeAll(where shouldRemove: (Subscriber) -> Bool) {
        entries.removeAll { shouldRemove($0.subscriber) }
    }

    mutating func removeValue(forKey id: UInt64) -> Subscriber? {
        guard let index = index(of: id) else { return nil }
        return entries.remove(at: index).subscriber
    }

    func allSatisfy(_ predicate: (Subscriber) -> Bool) -> Bool {
        entries.allSatisfy { predicate($0.subscriber) }
    }

    func contains(where predicate: (Subscriber) -> Bool) -> Bool {
        entries.contains { predicate($0.subscriber) }
    }

    private func index(of id: UInt64) -> Int? {
        entries.firstIndex { $0.id == id }
    }
}

/// What one consumer asked for when it subscribed.
struct SubscriberOptions: Sendable {
    var bufferingPolicy: FixBufferingPolicy = .default
    /// Statuses too (an event sequence), or fixes only.
    var includesStatuses = true
    /// Fixes before their epoch is known to be complete (``GPSDSession/firstFix``).
    var includesProvisionalFixes = false
    /// Start with gpsd's latest fix (`?POLL`) if it is no older than this.
    var latestNoOlderThan: Duration?
}
