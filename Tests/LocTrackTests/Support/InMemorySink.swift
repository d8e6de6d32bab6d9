import LocTrack
import LocTrackFormats
import LocTrackSinks
import Synchronization

/// A ``Sink`` double for the fan-out's tests: it keeps what it is given, settles what the
/// test says, may refuse, and, alone, may hold the caller until the test makes room.
final class InMemorySink: Sink {
    struct State {
        var batches: [SinkBatch] = []
        var eventsTaken = 0
        var settledEvents = 0
        /// Calls of the waiting entry point.
        var waitingTakes = 0
        var finishedPromptly: Bool?
        /// Holds a `takeWaitingForRoom` until ``makeRoom()``.
        var roomWaiter: CheckedContinuation<Void, Never>?
        var roomMade = false
    }

    let state = Mutex(State())
    private let refuses: Bool
    private let waitsForRoom: Bool
    private let outcome: SinkOutcome

    /// - Parameters:
    ///   - refuses: every take says the destination is gone (a closed stdout, a refused login).
    ///   - waitsForRoom: `takeWaitingForRoom` holds its caller until ``makeRoom()``.
    init(refuses: Bool = false, waitsForRoom: Bool = false, outcome: SinkOutcome = .done) {
        self.refuses = refuses
        self.waitsForRoom = waitsForRoom
        self.outcome = outcome
    }

    func take(_ batch: SinkBatch) -> Bool {
        state.withLock { state in
            state.batches.append(batch)
            state.eventsTaken += batch.eventCount
        }
        return !refuses
    }

    func takeWaitingForRoom(_ batch: SinkBatch) async -> Bool {
        state.withLock { $0.waitingTakes += 1 }
        if waitsForRoom {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let made = state.withLock { state in
                    if !state.roomMade { state.roomWaiter = continuation }
                    return state.roomMade
                }
                if made { continuation.resume() }
            }
        }
        return take(batch)
    }

    /// Lets a held `takeWaitingForRoom` go on (and every later one).
    func makeRoom() {
        let waiter = state.withLock { state in
            state.roomMade = true
            defer { state.roomWaiter = nil }
            return state.roomWaiter
        }
        waiter?.resume()
    }

    /// Whether a caller is held in `takeWaitingForRoom`.
    var isHoldingCaller: Bool { state.withLock { $0.roomWaiter != nil } }

    /// The destination has the first `count` events for good.
    func settle(through count: Int) {
        state.withLock { $0.settledEvents = count }
    }

    var settledEvents: Int { state.withLock { $0.settledEvents } }

    func finish(promptly: Bool) async -> SinkOutcome {
        state.withLock { $0.finishedPromptly = promptly }
        return outcome
    }

    /// The fixes' times of every gpsd batch taken, in order.
    var fixSeconds: [Int64] {
        state.withLock { state in
            state.batches.flatMap { batch -> [Int64] in
                guard case .gpsd(let gpsd) = batch else { return [] }
                return gpsd.events.compactMap { event -> Int64? in
                    guard case .fix(let fix) = event else { return nil }
                    return fix.time.seconds
                }
            }
        }
    }
}
