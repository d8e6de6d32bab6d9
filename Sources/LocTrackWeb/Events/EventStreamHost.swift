/// A waiting `next()` of an ``EventStream``.
package typealias EventWaiter = CheckedContinuation<[UInt8]?, Never>

/// An owner of an ``EventBroadcaster`` behind its lock: ``LiveHub``, whose one `Mutex`
/// holds the broadcaster with the rest of the live state, so that `/api/track`'s
/// `lastEventId` and the track it goes with are read together.
///
/// This extension turns the state machine into ``EventStream``s: each `next()` asks the
/// broadcaster under the lock and suspends on a continuation when it must wait; every
/// continuation is resumed after the lock is let go.
package protocol EventStreamHost: AnyObject, Sendable {
    /// Runs `body` on the broadcaster, holding the owner's lock.
    func withEventBroadcaster<Result: Sendable>(_ body: (inout EventBroadcaster<EventWaiter>) -> Result) -> Result
    /// Monotonic milliseconds: the keep-alive's clock.
    func monotonicMilliseconds() -> Int64
}

extension EventStreamHost {
    /// `/events`: a new stream after `lastEventID`, `.full` at the limit, or a stream that
    /// ends at once when the broadcaster has finished.
    package func openStream(after lastEventID: String?) -> EventStreamOpening {
        let now = monotonicMilliseconds()
        switch withEventBroadcaster({ $0.subscribe(after: lastEventID, now: now) }) {
        case .full:
            return .full
        case .finished:
            return .opened(EventStream(next: { nil }, cancel: {}))
        case .opened(let id):
            return .opened(EventStream(next: { await self.nextChunk(id) }, cancel: { self.cancelStream(id) }))
        }
    }

    /// Queues the keep-alives that are due (see ``EventBroadcaster/keepAlive(now:)``).
    package func sendKeepAlives() {
        let now = monotonicMilliseconds()
        resume(withEventBroadcaster { $0.keepAlive(now: now) })
    }

    /// Ends every stream.
    package func finishStreams() {
        for waiter in withEventBroadcaster({ $0.finish() }) { waiter.resume(returning: nil) }
    }

    /// Resumes the `next()`s a publish or a keep-alive released. Call without the lock.
    package func resume(_ resumptions: [EventBroadcaster<EventWaiter>.Resumption]) {
        for resumption in resumptions { resumption.waiter.resume(returning: resumption.chunk) }
    }

    private func nextChunk(_ id: EventBroadcaster<EventWaiter>.SubscriberID) async -> [UInt8]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: EventWaiter) in
                switch withEventBroadcaster({ $0.next(id, waiter: continuation) }) {
                case .deliver(let chunk): continuation.resume(returning: chunk)
                case .end: continuation.resume(returning: nil)
                case .suspend: break  // a publish, keep-alive, cancel or finish resumes it
                }
            }
        } onCancel: {
            cancelStream(id)
        }
    }

    private func cancelStream(_ id: EventBroadcaster<EventWaiter>.SubscriberID) {
        withEventBroadcaster { $0.cancel(id) }?.resume(returning: nil)
    }
}
