/// A session's fixes and statuses, in the order its reader saw them.
///
/// ```swift
/// for try await event in session.events() {
///     switch event {
///     case .fix(let fix): print(fix.latitude, fix.longitude)
///     case .status(let status): print("gpsd:", status)
///     }
/// }
/// ```
///
/// Each iterator is one consumer of its session's shared connection. The sequence
/// yields events, throws a ``LocTrackError``, or ends (returns nil) because
/// ``GPSDSession/finish()`` was called or the consuming task was cancelled: never
/// for another reason.
public struct AsyncGPSDEventSequence: AsyncSequence, Sendable {
    public typealias Element = GPSDEvent
    public typealias Failure = LocTrackError

    let session: GPSDSession
    let options: SubscriberOptions

    public func makeAsyncIterator() -> Iterator {
        Iterator(session.subscribe(options))
    }

    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = GPSDEvent
        public typealias Failure = LocTrackError

        private var subscription: Subscription?
        /// Subscribing failed: thrown by the first `next()`.
        private var startFailure: LocTrackError?
        /// The batch being handed out, and the next index in it.
        private var batch: [GPSDEvent] = []
        private var index = 0

        init(_ start: Subscription.Start) {
            switch start {
            case .subscribed(let connection, let id, let session):
                subscription = Subscription(processor: connection.processor, id: id, session: session)
            case .finished:
                subscription = nil
            case .failed(let error):
                startFailure = error
            }
        }

        public mutating func next() async throws(LocTrackError) -> GPSDEvent? {
            if index < batch.count {
                defer { index += 1 }
                return batch[index]
            }
            guard try await nextBatch() != nil else { return nil }
            index = 1  // nextBatch() handed out the whole new batch; take back all but its first
            return batch[0]
        }

        /// The events not yet taken from the current batch, or else the next batch:
        /// everything that reached this consumer in one wake-up of the reader (never
        /// empty). Nil at the end. For consumers that handle a batch at once, such as
        /// one `write` or one `fsync` per batch.
        public mutating func nextBatch() async throws(LocTrackError) -> ArraySlice<GPSDEvent>? {
            if index < batch.count {
                defer { index = batch.count }
                return batch[index...]
            }
            if let startFailure {
                self.startFailure = nil
                throw startFailure
            }
            guard let subscription else { return nil }
            let acknowledged = batch.count
            batch = []
            index = 0
            switch await subscription.processor.next(subscription.id, acknowledging: acknowledged) {
            case .events(let events):
                batch = events
                index = events.count
                return events[...]
            case .end:
                self.subscription = nil
                return nil
            case .failure(let error):
                self.subscription = nil
                throw error
            }
        }
    }
}

@available(*, unavailable)
extension AsyncGPSDEventSequence.Iterator: Sendable {}
