import LocTrack
import LocTrackSystem
import LocTrackFormats
import LocTrackSinks

/// Turns SIGINT and SIGTERM into a callback on a thread of its own.
///
/// ``blockTerminationSignals()`` must run first thing in `main`, before any other
/// thread exists, so every thread inherits the blocked mask and the signals wait
/// for `sigwait` here instead of killing the process mid-write.
enum SignalWatcher {
    static func blockTerminationSignals() {
        terminationSignals.blockInCallingThread()
        // A closed stdout or gpsd socket must give EPIPE, not end the process.
        ignoreSignal(.brokenPipe)
    }

    /// Calls `onSignal` with the signal number for each SIGINT/SIGTERM received,
    /// and `onTimeout` once when `timeout` has passed without one (a `--duration`:
    /// the same thread keeps the time, so no timer runs elsewhere).
    static func start(
        timeout: Duration? = nil, onTimeout: @escaping @Sendable () -> Void = {},
        onSignal: @escaping @Sendable (Int32) -> Void
    ) throws(Errno) {
        try startThread(named: "loctrack-signal") {
            let signals = SignalWatcher.terminationSignals
            if let timeout, let signal = waitForSignal(signals, upTo: timeout) {
                onSignal(signal.rawValue)
            } else if timeout != nil {
                onTimeout()
            }
            while true {
                if let received = signals.wait() { onSignal(received.rawValue) }
            }
        }
    }

    /// The first signal within `timeout`, or nil when the time ran out.
    private static func waitForSignal(_ signals: SignalSet, upTo timeout: Duration) -> Signal? {
        let deadline = Monotonic.milliseconds + timeout.milliseconds
        while true {
            let remaining = max(0, deadline - Monotonic.milliseconds)
            do throws(Errno) {
                return try signals.wait(milliseconds: remaining)
            } catch {
                if error == .wouldBlock || remaining == 0 { return nil }
            }
        }
    }

    private static var terminationSignals: SignalSet { SignalSet([.interrupt, .terminate]) }
}
