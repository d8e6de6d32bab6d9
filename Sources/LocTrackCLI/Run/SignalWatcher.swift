import Glibc
import LocTrack
import LocTrackSystem

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

    /// Calls `onSignal` with the signal number for each SIGINT/SIGTERM received,
    /// and `onTimeout` once when `timeout` has passed without one (a `--duration`:
    /// the same thread keeps the time, so no timer runs elsewhere).
    static func start(
        timeout: Duration? = nil, onTimeout: @escaping @Sendable () -> Void = {},
        onSignal: @escaping @Sendable (Int32) -> Void
    ) throws(Errno) {
        try startThread(named: "loctrack-signal") {
            var signals = SignalWatcher.terminationSignals
            if let timeout, let signal = waitForSignal(&signals, upTo: timeout) {
                onSignal(signal)
            } else if timeout != nil {
                onTimeout()
            }
            while true {
                var received: Int32 = 0
                if sigwait(&signals, &received) == 0 { onSignal(received) }
            }
        }
    }

    /// The first signal within `timeout`, or nil when the time ran out.
    private static func waitForSignal(_ signals: inout sigset_t, upTo timeout: Duration) -> Int32? {
        let deadline = Monotonic.milliseconds + timeout.milliseconds
        while true {
            let remaining = max(0, deadline - Monotonic.milliseconds)
            var wait = timespec(tv_sec: Int(remaining / 1000), tv_nsec: Int(remaining % 1000) * 1_000_000)
            let signal = sigtimedwait(&signals, nil, &wait)
            if signal > 0 { return signal }
            if errno == EAGAIN || remaining == 0 { return nil }
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
