import Synchronization

/// What a ``SerialProcessor`` does when inputs arrive faster than it processes them.
public struct SerialProcessorBufferingPolicy: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case unbounded
        case dropNewest(Int)
        case dropOldest(Int)
    }

    let kind: Kind

    /// Keep everything (the default): nothing is ever dropped; memory grows with the backlog.
    public static let unbounded = SerialProcessorBufferingPolicy(kind: .unbounded)
    /// Keep at most `limit` waiting inputs; a new input beyond that is dropped.
    public static func dropNewest(limit: Int) -> Self { Self(kind: .dropNewest(max(1, limit))) }
    /// Keep at most `limit` waiting inputs; the oldest waiting one makes room for a new one.
    public static func dropOldest(limit: Int) -> Self { Self(kind: .dropOldest(max(1, limit))) }

    public var description: String {
        switch kind {
        case .unbounded: "unbounded"
        case .dropNewest(let limit): "dropNewest(limit: \(limit))"
        case .dropOldest(let limit): "dropOldest(limit: \(limit))"
        }
    }
}

/// Processes inputs one at a time, in the order they were submitted.
///
/// `submit` is synchronous and never blocks, so a real thread (loctrack's
/// gpsd reader) can hand inputs to async code; a single worker task runs
/// `process` on each in turn. What happens to a backlog is the explicit
/// ``SerialProcessorBufferingPolicy``; the default never drops.
public final class SerialProcessor<Input: Sendable>: Sendable {
    /// The outcome of ``submit(_:)``.
    public enum SubmitResult: Sendable, Equatable {
        case accepted
        /// The policy dropped an input to stay within its limit.
        case droppedOne
        /// The processor was finished or cancelled; the input was not taken.
        case rejected
    }

    private let state: Mutex<SerialProcessorStateMachine<Input>>
    private let workDone: Mutex<(done: Bool, waiters: [UnsafeContinuation<Void, Never>])>

    /// Starts the worker.
    /// - Parameters:
    ///   - bufferingPolicy: what to do with a backlog; `.unbounded` keeps everything.
    ///   - process: called for each input, one at a time, in submission order.
    public init(
        bufferingPolicy: SerialProcessorBufferingPolicy = .unbounded,
        process: @escaping @Sendable (Input) async -> Void
    ) {
        state = Mutex(SerialProcessorStateMachine(policy: bufferingPolicy))
        workDone = Mutex((false, []))
        Task { [self] in
            while let input = await self.nextInput() {
                await process(input)
            }
            self.markDone()
        }
    }

    /// Hands over one input. Never blocks; callable from any thread.
    @discardableResult
    public func submit(_ input: Input) -> SubmitResult {
        switch state.withLock({ $0.submit(input) }) {
        case .resume(let waiter, let input):
            waiter.resume(returning: input)
            return .accepted
        case .enqueued:
            return .accepted
        case .dropped:
            return .droppedOne
        case .rejected:
            return .rejected
        }
    }

    /// Takes no more input; everything already accepted is still processed.
    public func finish() {
        state.withLock { $0.finish() }?.resume(returning: nil)
    }

    /// Takes no more input and drops what waits; the input being processed completes.
    public func cancel() {
        state.withLock { $0.cancel() }?.resume(returning: nil)
    }

    /// Inputs accepted but not yet handed to `process`.
    public var backlog: Int { state.withLock { $0.queuedCount } }

    /// Inputs the buffering policy or ``cancel()`` dropped.
    public var droppedCount: Int { state.withLock { $0.droppedCount } }

    /// Returns once the worker has processed its last input after ``finish()`` or ``cancel()``.
    public func waitUntilDone() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let alreadyDone = workDone.withLock { done in
                if done.done { return true }
                done.waiters.append(continuation)
                return false
            }
            if alreadyDone { continuation.resume() }
        }
    }

    private func nextInput() async -> Input? {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Input?, Never>) in
            switch state.withLock({ $0.next(continuation) }) {
            case .resume(let waiter, let input): waiter.resume(returning: input)
            case .suspend: break
            }
        }
    }

    private func markDone() {
        let waiters = workDone.withLock { done in
            done.done = true
            defer { done.waiters = [] }
            return done.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
