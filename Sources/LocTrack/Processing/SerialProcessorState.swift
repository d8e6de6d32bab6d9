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

        /// Every event given to this consumer and not yet taken: in this queue or in its iterator.
        var waiting: Int { queue.count + outstanding }
        var isBehind: Bool { options.bufferingPolicy.backpressureLimit.map { waiting >= $0 } ?? false }
        var hasCaughtUp: Bool { options.bufferingPolicy.backpressureLimit.map { waiting <= $0 / 2 } ?? true }
    }

    enum ReaderAction: Equatable {
        case none, pause, resume, stop
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
        subscribers[nextID] = Subscriber(options: options, awaitsPoll: options.latestNoOlderThan)
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
    mutating func submit(_ batch: [ReaderEvent]) -> (resumptions: [(Waiter, Delivery)], reader: ReaderAction) {
        // Mutated by key, with no copy of a subscriber or a view of the table held:
        // either would make every append copy a whole queue.
        let ids = subscribers.ids
        for event in batch {
            switch event {
            case .fix(let fix):
                append(.fix(fix), to: ids) { _ in true }
            case .provisional(let fix):
                append(.fix(fix), to: ids) { $0.includesProvisionalFixes }
            case .status(let status):
                append(.status(status), to: ids) { $0.includesStatuses }
            case .sky(let view):
                append(.sky(view), to: ids) { $0.includesStatuses }
            case .polled(let fixes, let gpsdTime):
                deliverPolled(fixes, gpsdTime: gpsdTime)
            case .failed(let error):
                end(with: .failure(error))
            case .ended:
                end(with: .end)
            }
        }
        var resumptions: [(Waiter, Delivery)] = []
        for id in ids {
            applyBufferingPolicy(to: id)
            if let resumption = takeDelivery(for: id) { resumptions.append(resumption) }
        }
        guard !readerPaused, subscribers.contains(where: \.isBehind) else { return (resumptions, .none) }
        readerPaused = true
        return (resumptions, .pause)
    }

    private mutating func append(_ event: GPSDEvent, to ids: [UInt64], if wanted: (SubscriberOptions) -> Bool) {
        for id in ids where subscribers[id].map({ wanted($0.options) }) ?? false {
            subscribers[id]?.queue.append(event)
        }
    }

    private mutating func deliverPolled(_ fixes: [Fix], gpsdTime: Timestamp?) {
        let oldestFirst = fixes.sorted { $0.time < $1.time }
        for id in subscribers.ids {
            guard let maximumAge = subscribers[id]?.awaitsPoll else { continue }
            subscribers[id]?.awaitsPoll = nil
            for fix in oldestFirst where Self.isFresh(fix, gpsdTime: gpsdTime, maximumAge: maximumAge) {
                subscribers[id]?.queue.append(.fix(fix))
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
    private mutating func applyBufferingPolicy(to id: UInt64) {
        guard var subscriber = subscribers[id], let limit = subscriber.options.bufferingPolicy.dropLimit else { return }
        let excess = subscriber.queue.count - limit
        guard excess > 0 else { return }
        if subscriber.options.bufferingPolicy.dropsOldest {
            subscriber.queue.removeFirst(excess)
        } else {
            subscriber.queue.removeLast(excess)
        }
        subscriber.dropped += excess
        subscribers[id] = subscriber
    }

    // MARK: Consumers ask

    enum NextAction {
        case deliver(Delivery, reader: ReaderAction)
        case suspend(reader: ReaderAction)
    }

    /// A consumer took `acknowledged` events since it last asked and wants more.
    mutating func next(_ id: UInt64, acknowledging acknowledged: Int, waiter: Waiter) -> (resumption: (Waiter, Delivery)?, reader: ReaderAction) {
        guard var subscriber = subscribers[id] else { return ((waiter, .end), .none) }
        subscriber.outstanding = max(0, subscriber.outstanding - acknowledged)
        subscriber.waiter = waiter
        subscribers[id] = subscriber
        let reader = resumeIfCaughtUp()
        return (takeDelivery(for: id), reader)
    }

    /// The waiting consumer's delivery, if it waits and has one.
    private mutating func takeDelivery(for id: UInt64) -> (Waiter, Delivery)? {
        guard var subscriber = subscribers[id], let waiter = subscriber.waiter else { return nil }
        if !subscriber.queue.isEmpty {
            let events = subscriber.queue
            subscriber.queue = []
            subscriber.outstanding += events.count
            subscriber.waiter = nil
            subscribers[id] = subscriber
            return (waiter, .events(events))
        }
        guard let ending else { return nil }
        subscribers[id] = nil  // it has everything: the end is the last thing it gets
        return (waiter, ending)
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
/// to a handful of consumers, and the reader looks each one up for every batch: a
/// dictionary would hash the id every time and bring its hashing and probing code into
/// every wake-up (on a 1 Hz stream, code that must come back into the caches each time
/// costs more than the work it does).
struct SubscriberTable {
    typealias Subscriber = SerialProcessorState.Subscriber

    /// `subscriber` is nil only while ``subscript(_:)`` lends it out.
    /// A struct, not a tuple: a tuple's copy goes through the runtime's generic
    /// tuple witness, more code on every batch (see docs/performance.md).
    private struct Entry {
        let id: UInt64
        var subscriber: Subscriber?
    }
    private var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    /// The ids, oldest subscriber first.
    var ids: [UInt64] { entries.map { $0.id } }  // a closure: a key path runs generic runtime code

    subscript(id: UInt64) -> Subscriber? {
        get {
            guard let index = index(of: id) else { return nil }
            return entries[index].subscriber
        }
        _modify {
            if let index = index(of: id) {
                // Moved out and back, never copied: a copy would make an append copy its queue.
                var value: Subscriber? = nil
                swap(&value, &entries[index].subscriber)
                defer {
                    if value != nil {
                        swap(&value, &entries[index].subscriber)
                    } else {
                        entries.remove(at: index)
                    }
                }
                yield &value
            } else {
                var value: Subscriber? = nil
                defer { if let value { entries.append(Entry(id: id, subscriber: value)) } }
                yield &value
            }
        }
    }

    mutating func removeValue(forKey id: UInt64) -> Subscriber? {
        guard let index = index(of: id) else { return nil }
        return entries.remove(at: index).subscriber
    }

    func allSatisfy(_ predicate: (Subscriber) -> Bool) -> Bool {
        entries.allSatisfy { $0.subscriber.map(predicate) ?? true }
    }

    func contains(where predicate: (Subscriber) -> Bool) -> Bool {
        entries.contains { $0.subscriber.map(predicate) ?? false }
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
