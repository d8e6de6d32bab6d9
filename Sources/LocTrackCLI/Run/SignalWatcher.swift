import Glibc
import LocTrack
import Synchronization

/// Turns SIGINT and SIGTERM into a callback on a thread of its own.
///
/// ``blockTerminationSignals()`` must run first thing in `main`, before any other
/// thread exists, so every thread inherits the blocked mask and the signals wait
/// for `sigwait` here instead of killing the process mid-write.
enum SignalWatcher {
    static func blockTerminationSignals() {
        var signals = terminationSignals
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        // A closed stdout or gpsd socket must give EPIPE, not end the process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Calls `handler` with the signal number for each SIGINT/SIGTERM received.
    static func start(_ handler: @escaping @Sendable (Int32) -> Void) {
        _ = startDetachedThread {
            var signals = SignalWatcher.terminationSignals
            while true {
                var received: Int32 = 0
                if sigwait(&signals, &received) == 0 { handler(received) }
            }
        }
    }

    private static var terminationSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }
}
