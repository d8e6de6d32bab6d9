/// Who gets which event of `/events`, decided without locks, clocks or I/O: a pure state
/// machine in the style of swift-async-algorithms' `Buffer`. Its owner keeps it behind a
/// `Mutex` (``EventStreamHost``) and carries out what each call returns (resuming the
/// clients' waiting `next()`) after letting go of the lock.
///
/// Every event goes into the ring (``EventRing``) once; each client (a subscriber) has a
/// cursor into it, so publishing never copies an event per client and never waits for
/// one. The rules, from docs/http.md:
/// - A client that opens with an `after` id gets the events after it from the ring, then
///   the live ones; if they are no longer all in the ring, or the id is from another run,
///   it gets a `reset` and then the live ones. Without an id, it starts with the next event.
/// - A client has a queue of at most ``Limits/queueLimit`` live events (the replay it
///   opened with is not counted: the ring holds those anyway). A client that lets more
///   pile up, or whose next event is pushed out of the ring, is cut off: its stream ends,
///   and it reconnects with its `Last-Event-ID`. Nobody else waits for it, and what it
///   can hold is bounded by the ring.
/// - At most ``Limits/maxStreams`` clients at once.
/// - A client that was sent nothing for ``Limits/keepAliveMilliseconds`` gets a comment,
///   on the next ``keepAlive(now:)``.
///
/// `Waiter` is what a waiting `next()` left to be resumed (a continuation; a plain value
/// in tests).
package struct EventBroadcaster<Waiter: Sendable>: Sendable {
    package struct Limits: Sendable, Equatable {
        package var maxStreams: Int
        package var queueLimit: Int
        package var ringCapacity: Int
        package var keepAliveMilliseconds: Int64
        /// What one `next()` hands out at most when events wait: a client catching up
        /// gets them in a few large writes instead of one write per event.
        package var batchBytes: Int

        package init(
            maxStreams: Int = 64, queueLimit: Int = 1_024, ringCapacity: Int = EventRing.defaultCapacity,
            keepAliveMilliseconds: Int64 = 15_000, batchBytes: Int = 64 * 1024
        ) {
            self.maxStreams = maxStreams
            self.queueLimit = queueLimit
            self.ringCapacity = ringCapacity
            self.keepAliveMilliseconds = keepAliveMilliseconds
            self.batchBytes = batchBytes
        }
    }

    /// One client's stream.
    package struct SubscriberID: Sendable, Hashable {
        let value: UInt64
    }

    package enum Opening: Sendable, Equatable {
        case opened(SubscriberID)
        /// ``Limits/maxStreams`` streams are open: the route answers 503.
        case full
        /// ``finish()`` was called: the stream ends at once.
        case finished
    }

    package enum NextAction: Sendable, Equatable {
        /// Hand these bytes out now.
        case deliver([UInt8])
        /// Nothing to send: the waiter is kept and resumed by a later call.
        case suspend
        /// The stream is over (cancelled, cut off, or finished).
        case end
    }

    /// A waiting `next()` to resume with a chunk, or with nil: its stream ended.
    package struct Resumption: Sendable {
        package let waiter: Waiter
        package let chunk: [UInt8]?
    }

    private struct Subscriber: Sendable {
        /// The number of the next event it gets.
        var cursor: UInt64
        /// The first event published after it opened: only from here on do waiting
        /// events count against its queue.
        let liveFrom: UInt64
        /// A `reset` event to send before anything else.
        var reset: [UInt8]?
        var keepAliveDue = false
        /// Monotonic milliseconds when something was last queued for it (or it opened).
        var lastQueued: Int64
        var waiter: Waiter?
    }

    package let run: String
    package let limits: Limits
    private(set) package var ring: EventRing
    private var subscribers: [SubscriberID: Subscriber] = [:]
    private var nextSubscriber: UInt64 = 1
    private(set) package var isFinished = false

    package init(run: String, limits: Limits = Limits()) {
        self.run = run
        self.limits = limits
        ring = EventRing(capacity: limits.ringCapacity)
    }

    /// The number of open streams.
    package var streamCount: Int { subscribers.count }

    /// The number of streams waiting in `next()` for an event.
    package var waitingCount: Int { subscribers.values.count { $0.waiter != nil } }

    /// The id of the latest event (`RUN-0` before the first).
    package var lastEventID: EventID { EventID(run: run, sequence: ring.lastSequence) }

    // MARK: Clients

    /// A new stream that starts after `after` (a `Last-Event-ID` or `?after=`; one that
    /// does not parse counts as none).
    package mutating func subscribe(after: String?, now: Int64) -> Opening {
        guard !isFinished else { return .finished }
        guard subscribers.count < limits.maxStreams else { return .full }
        let id = SubscriberID(value: nextSubscriber)
        nextSubscriber += 1
        let next = ring.lastSequence + 1
        var subscriber = Subscriber(cursor: next, liveFrom: next, lastQueued: now)
        if let after = after.flatMap({ EventID(parsing: $0) }) {
            // The events after `after` are all held when the one after it is (or none came yet).
            if after.run == run, after.sequence <= ring.lastSequence, after.sequence + 1 >= ring.firstSequence {
                subscriber.cursor = after.sequence + 1
            } else {
                // Its id is the latest: a client that reconnects with it continues from here.
                subscriber.reset = ServerSentEvent(id: lastEventID, name: .reset, data: "{}").bytes
            }
        }
        subscribers[id] = subscriber
        return .opened(id)
    }

    /// What the client's `next()` gets: everything waiting for it (up to
    /// ``Limits/batchBytes``, in order), a keep-alive when that is all, or else it waits.
    package mutating func next(_ id: SubscriberID, waiter: Waiter) -> NextAction {
        guard var subscriber = subscribers[id] else { return .end }
        // Two `next()` at once on one stream is a misuse: the second ends.
        guard subscriber.waiter == nil else { return .end }
        var chunk = subscriber.reset ?? []
        subscriber.reset = nil
        while chunk.count < limits.batchBytes, let event = ring[subscriber.cursor] {
            // One event alone is handed out as the ring holds it: no copy.
            if chunk.isEmpty { chunk = event } else { chunk += event }
            subscriber.cursor += 1
        }
        if chunk.isEmpty, subscriber.keepAliveDue { chunk = ServerSentEvent.keepAlive }
        subscriber.keepAliveDue = false
        if chunk.isEmpty { subscriber.waiter = waiter }
        subscribers[id] = subscriber
        return chunk.isEmpty ? .suspend : .deliver(chunk)
    }

    /// Removes the client at once; returns its waiting `next()`, to resume with nil.
    package mutating func cancel(_ id: SubscriberID) -> Waiter? {
        subscribers.removeValue(forKey: id)?.waiter
    }

    // MARK: Events

    /// Adds an event: into the ring, and to every client, resuming those that wait.
    /// Clients whose queue overflows are cut off here (none of them waits: a waiting
    /// client has nothing queued).
    package mutating func publish(_ name: ServerSentEvent.Name, data: String, now: Int64) -> (id: EventID, resumptions: [Resumption]) {
        let id = EventID(run: run, sequence: ring.lastSequence + 1)
        let chunk = ServerSentEvent(id: id, name: name, data: data).bytes
        ring.append(chunk)
        var resumptions: [Resumption] = []
        var cutOff: [SubscriberID] = []
        let queueLimit = UInt64(limits.queueLimit)
        let oldestHeld = ring.firstSequence
        forEachSubscriber { subscriberID, subscriber in
            subscriber.lastQueued = now
            if let waiter = subscriber.waiter {
                subscriber.waiter = nil
                subscriber.cursor = id.sequence + 1
                resumptions.append(Resumption(waiter: waiter, chunk: chunk))
            } else if id.sequence + 1 - max(subscriber.cursor, subscriber.liveFrom) > queueLimit
                        || subscriber.cursor < oldestHeld {
                cutOff.append(subscriberID)
            }
        }
        for subscriberID in cutOff { subscribers.removeValue(forKey: subscriberID) }
        return (id, resumptions)
    }

    /// Queues a keep-alive for each client that was sent nothing for
    /// ``Limits/keepAliveMilliseconds``, resuming those that wait.
    package mutating func keepAlive(now: Int64) -> [Resumption] {
        var resumptions: [Resumption] = []
        let lastSequence = ring.lastSequence
        let quiet = limits.keepAliveMilliseconds
        forEachSubscriber { _, subscriber in
            let idle = subscriber.reset == nil && subscriber.cursor > lastSequence && !subscriber.keepAliveDue
            guard idle, now - subscriber.lastQueued >= quiet else { return }
            subscriber.lastQueued = now
            if let waiter = subscriber.waiter {
                subscriber.waiter = nil
                resumptions.append(Resumption(waiter: waiter, chunk: ServerSentEvent.keepAlive))
            } else {
                subscriber.keepAliveDue = true
            }
        }
        return resumptions
    }

    /// Runs `body` on each subscriber in place. Walked by index, not `for index in
    /// subscribers.indices`: that collection keeps a reference to the dictionary's storage,
    /// and the first change would then copy the whole dictionary, on every publish.
    private mutating func forEachSubscriber(_ body: (SubscriberID, inout Subscriber) -> Void) {
        var index = subscribers.startIndex
        while index != subscribers.endIndex {
            let id = subscribers.keys[index]
            body(id, &subscribers.values[index])
            subscribers.formIndex(after: &index)
        }
    }

    /// Ends every stream (the server stops); later subscriptions end at once. Returns the
    /// waiting `next()`s, to resume with nil.
    package mutating func finish() -> [Waiter] {
        isFinished = true
        let waiters = subscribers.values.compactMap(\.waiter)
        subscribers = [:]
        return waiters
    }
}
