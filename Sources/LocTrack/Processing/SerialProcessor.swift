import Synchronization
import LocTrackSystem

/// Carries the reader thread's events to every consumer, in order, one batch at a time.
///
/// The reader thread calls ``submit(_:)`` once per wake-up with everything that
/// wake-up produced; it never blocks. Each consumer (an iterator of
/// ``AsyncGPSDEventSequence``) has its own queue here and takes all of it at once
/// when it asks, so a batch costs one lock and at most one resumption per consumer,
/// and no task of its own. Nothing is dropped unless a consumer's
/// ``FixBufferingPolicy`` says so; the default, `.bounded(1024)`, pauses the
/// reader instead while a consumer has that many events waiting (in its queue
/// here or in its iterator).
///
/// The decisions are ``SerialProcessorState``'s; this class only applies them
/// outside its lock: resuming consumers, and pausing, resuming or stopping the
/// reader through its ``ReaderControl``.
final class SerialProcessor: Sendable {
    private let state = Mutex(SerialProcessorState())
    private let reader: ReaderControl

    init(reader: ReaderControl) {
        self.reader = reader
    }

    /// A new consumer, or nil when the reader has ended or its last consumer left.
    func add(_ options: SubscriberOptions) -> UInt64? {
        state.withLock { $0.add(options) }
    }

    /// One batch from the reader thread, in the order it read it.
    func submit(_ batch: [ReaderEvent]) {
        let (resumptions, readerAction) = state.withLock { state in
            let outcome = state.submit(batch)
            reader.setPaused(state.readerPaused)  // in the lock: pause and resume are stored in order
            return outcome
        }
        apply(readerAction)
        resumptions.resumeAll()
    }

    /// The consumer `id` took `acknowledged` events since it last asked; waits for more.
    /// Cancelling the calling task removes the consumer and returns `.end`.
    func next(_ id: UInt64, acknowledging acknowledged: Int) async -> SerialProcessorState.Delivery {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (waiter: SerialProcessorState.Waiter) in
                let (resumption, readerAction) = state.withLock { state in
                    let outcome = state.next(id, acknowledging: acknowledged, waiter: waiter)
                    reader.setPaused(state.readerPaused)  // in the lock: pause and resume are stored in order
                    return outcome
                }
                apply(readerAction)
                if let (waiter, delivery) = resumption { waiter.resume(returning: delivery) }
            }
        } onCancel: {
            remove(id)
        }
    }

    /// The consumer `id` is gone; the last one stops the reader.
    func remove(_ id: UInt64) {
        let (waiter, readerAction) = state.withLock { state in
            let outcome = state.remove(id)
            reader.setPaused(state.readerPaused)  // in the lock: pause and resume are stored in order
            return outcome
        }
        apply(readerAction)
        waiter?.resume(returning: .end)
    }

    /// Whether it takes no new consumer (its reader ended, or its last consumer left).
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// How many consumers are subscribed (for tests and diagnostics).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Outside the lock: wake the reader to read again, or stop it.
    private func apply(_ action: SerialProcessorState.ReaderAction) {
        switch action {
        case .none, .pause: break
        case .resume: reader.wakeUps.wake()
        case .stop: reader.requestStop(flushing: false)
        }
    }
}
