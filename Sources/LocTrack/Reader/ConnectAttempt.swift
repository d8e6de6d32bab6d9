import Synchronization
import LocTrackSystem

/// One connect to gpsd, run on a thread of its own so the reader can give up on it.
///
/// libgps's `gps_open` blocks in `connect()` with no timeout: a host that drops
/// packets holds the calling thread until the kernel gives up (minutes). The
/// reader therefore waits for the attempt on its wake-up pipe with a deadline
/// (``ReaderTimings/connect``), and stays stoppable meanwhile. An abandoned attempt
/// closes its connection itself if `connect()` ever returns.
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

    private let state = Mutex(State.pending)

    /// Starts connecting; `control`'s wake-up pipe is woken when the attempt is done.
    init(connector: any GPSDConnector, source: GPSDSource, control: ReaderControl) throws(Errno) {
        try startThread(named: "loctrack-connect") { [self] in
            let result: Result<any GPSDTransport, LocTrackError>
            do throws(LocTrackError) {
                result = .success(try connector.connect(to: source))
            } catch {
                result = .failure(error)
            }
            let wanted = state.withLock { state -> Bool in
                guard case .pending = state else { return false }
                state = .finished(HandOver(result: result))
                return true
            }
            if wanted { control.wakeUps.wake() }
        }
    }

    /// The outcome, once; nil while `connect()` is still running.
    func take() -> Result<any GPSDTransport, LocTrackError>? {
        state.withLock { state -> Result<any GPSDTransport, LocTrackError>? in
            guard case .finished(let handOver) = state else { return nil }
            state = .taken
            return handOver.result
        }
    }

    /// The reader no longer waits: a connection that arrives later is closed at once.
    func abandon() {
        let late = state.withLock { state -> HandOver? in
            defer { state = .abandoned }
            if case .finished(let handOver) = state { return handOver }
            return nil
        }
        _ = late  // released here, on the reader thread: its deinit closes the socket
    }
}
