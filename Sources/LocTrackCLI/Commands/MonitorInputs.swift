import LocTrack
import Synchronization
import LocTrackFormats
import LocTrackSinks

/// What `monitor run` reacts to, in one ordered sequence: the session's batches, and a
/// tick about once a second while no batch comes.
///
/// Without the ticks a monitor would see conditions that other processes add or remove
/// only with the next fix; with them, within two seconds also while gpsd sends nothing.
/// The session's batches are handed over one at a time: the task that reads the session
/// waits until the command has taken the last (``took()``), so nothing queues here and the
/// session's own buffering policy still applies.
final class MonitorInputs: Sendable {
    enum Input: Sendable {
        case batch([GPSDEvent])
        case tick
        /// The session failed (gpsd refused, went away with `--no-reconnect`).
        case failed(LocTrackError)
    }

    /// One second: with the monitor's own check of the state file at most once a second,
    /// a change made elsewhere is seen within two.
    static let tickInterval = Duration.seconds(1)

    let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    private let turn = Turn()
    /// A tick is waiting to be taken (in a box of its own: the ticker task holds it too).
    private let tickPending = TickFlag()
    private let reader: Task<Void, Never>
    private let ticker: Task<Void, Never>

    init(session: GPSDSession) {
        (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        let continuation = continuation, turn = turn, tickPending = tickPending
        reader = Task {
            var events = session.events().makeAsyncIterator()
            do throws(LocTrackError) {
                while let batch = try await events.nextBatch() {
                    continuation.yield(.batch(Array(batch)))
                    await turn.wait()
                }
            } catch {
                continuation.yield(.failed(error))
            }
            continuation.finish()
        }
        ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.tickInterval)
                // One tick waits at most: a command busy for a while gets one, not a pile.
                if tickPending.waiting.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
                    continuation.yield(.tick)
                }
            }
        }
    }

    /// The command has dealt with the batch it took: the session's next one may come.
    func took() {
        turn.signal()
    }

    /// The command has dealt with a tick.
    func tookTick() {
        tickPending.waiting.store(false, ordering: .relaxed)
    }

    /// Stops the ticks and waits for the task that reads the session to end: call it once
    /// the session is finished, so that nothing started here outlives the command.
    func stop() async {
        ticker.cancel()
        turn.signal()  // a reader waiting for its turn goes on to see the session's end
        await reader.value
        continuation.finish()
    }
}

private final class TickFlag: Sendable {
    let waiting = Atomic(false)
}

/// A turn passed between two tasks: ``wait()`` returns once ``signal()`` was called
/// (before or after), once per signal.
private final class Turn: Sendable {
    private struct State {
        var signals = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.signals > 0 {
                    state.signals -= 1
                    return true
                }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signals += 1
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
