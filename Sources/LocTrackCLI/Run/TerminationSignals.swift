import LocTrackSystem

/// SIGINT and SIGTERM for `loctrack`'s commands, through LocTrackSystem's
/// ``SignalWatcher`` (the mechanism `loctrack-serve` uses too).
///
/// ``block()`` must run first thing in `main`, before any other thread exists, so every
/// thread inherits the blocked mask and the signals wait for the watcher instead of
/// killing the process mid-write.
enum TerminationSignals {
    static let set = SignalSet([.interrupt, .terminate])

    static func block() {
        set.blockInCallingThread()
        // A closed stdout or gpsd socket must give EPIPE, not end the process.
        ignoreSignal(.brokenPipe)
    }

    /// Calls `onSignal` with each SIGINT/SIGTERM received, and `onTimeout` once when
    /// `timeout` has passed without one (a `--duration`), on the watcher's thread.
    /// - Returns: the watcher: the thread runs while it is held, and is joined when it goes.
    static func watch(
        timeout: Duration? = nil, onTimeout: @escaping @Sendable () -> Void = {},
        onSignal: @escaping @Sendable (Signal) -> Void
    ) throws(Errno) -> SignalWatcher {
        try SignalWatcher(set, timeout: timeout, onTimeout: onTimeout, onSignal: onSignal)
    }
}
