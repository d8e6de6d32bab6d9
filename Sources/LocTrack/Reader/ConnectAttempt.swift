import Synchronization
import LocTrackSystem

/// One connect to gpsd, run on a thread of its own so the reader can give up on it.
///
/// libgps's `gps_open` blocks in `connect()` with no timeout: a host that drops
/// packets holds the calling thread until the kernel gives up (minutes). The
/// reader therefore waits for the attempt on its wake-up pipe with a deadline
/// (``ReaderTimings/connect``), and stays stoppable meanwhile. An abandoned attempt
/// closes its connection itself if `connect()` ever returns.
///
/// The thread, `loctrack-connect`, is this object's: joined when the object goes away
/// (the outcome was taken, so the thread has stored it and is returning), or handed to
/// ``ThreadReaper`` when the reader abandons it, since a join would then wait as long
/// as `connect()` does.
final class ConnectAttempt: Sendable {
    private enum State {
        case pending
        case abandoned
        case finished(HandOver)
        case taken
    }

    /// The connection crossing from the connector thread to the reader thread.
    /// `@unchecked` at the C boundary: it wraps libgps's `gps_data_t`, which is not
    /// thread-safe, and the region checker cannot see that the connector thread never
    /// touches it after storing it under the lock: from then on only the reader
    /// thread (or, abandoned, its last release) uses it, one thread at a time.
    private struct HandOver: @unchecked Sendable {
        let result: Result<any GPSDTransport, LocTrackError>
    }

    /// What the connector thread holds: the outcome, not the attempt (and so not its thread).
    private final class Outcome: Sendable {
        let state = Mutex(State.pending)
    }

    private let outcome = Outcome()
    private let thread = ThreadOwner()

    /// Starts connecting; `control`'s wake-up pipe is woken when the attempt is done.
    init(connector: any GPSDConnector, source: GPSDSource, control: ReaderControl) throws(Errno) {
        let outcome = self.outcome
        try thread.start(named: "loctrack-connect") {
            let result: Result<any GPSDTransport, LocTrackError>
            do throws(LocTrackError) {
                result = .success(try connector.connect(to: source))
            } catch {
                result = .failure(error)
            }
            let wanted = outcome.state.withLock { state -> Bool in
                guard case .pending = state else { return false }
                state = .finished(HandOver(result: result))
                return true
            }
            if wanted { control.wakeUps.wake() }
        }
    }

    /// The outcome, once; nil while `connect()` is still running.
    func take() -> Result<any GPSDTransport, LocTrackError>? {
        outcome.state.withLock { state -> Result<any GPSDTransport, LocTrackError>? in
            guard case .finished(let handOver) = state else { return nil }
            state = .taken
            return handOver.result
        }
    }

    /// The reader no longer waits: a connection that arrives later is closed at once, and
    /// the thread is joined by ``ThreadReaper`` whenever `connect()` returns.
    func abandon() {
        let late = outcome.state.withLock { state -> HandOver? in
            defer { state = .abandoned }
            if case .finished(let handOver) = state { return handOver }
            return nil
        }
        _ = late  // released here, on the reader thread: its deinit closes the socket
        thread.handToReaper()
    }
}
