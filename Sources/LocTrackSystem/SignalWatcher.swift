internal import CGlibcExtras
import Glibc
import Synchronization

/// Blocked signals turned into callbacks on a thread of its own, `loctrack-signal`: the
/// one way both programs, `loctrack` and `loctrack-serve`, learn of SIGINT and SIGTERM.
///
/// The signals must be blocked in every thread first (``SignalSet/blockInCallingThread()``
/// in `main`, before any thread starts), so they wait here instead of ending the process
/// mid-write. The thread sleeps in `poll()` on a signalfd and a wake-up pipe: no timer, no
/// polling. ``stop()`` (or the watcher's release) sets a flag, wakes the thread and joins
/// it, so once the watcher is gone its thread and its three descriptors are too.
package final class SignalWatcher: Sendable {
    /// What the thread uses: everything but the watcher, so that a watcher nobody holds is
    /// deinitialised and stops the thread.
    private final class Control: Sendable {
        let stopRequested = Atomic(false)
        let wakeUps: WakeUpPipe
        let signals: SharedDescriptor

        init(signals: SharedDescriptor) throws(Errno) {
            self.signals = signals
            wakeUps = try WakeUpPipe()
        }
    }

    private let control: Control
    private let thread = ThreadOwner()

    /// Starts watching.
    /// - Parameters:
    ///   - signals: the signals to receive; they must be blocked in every thread.
    ///   - timeout: when set, `onTimeout` is called once when it has passed without a
    ///     signal (`--duration`: the same thread keeps the time, so no timer runs elsewhere).
    ///   - onSignal: called on the watcher's thread for every signal received.
    /// - Throws: the `Errno` of signalfd(2), pipe(2) or pthread_create(3).
    package init(
        _ signals: SignalSet, timeout: Duration? = nil, onTimeout: @escaping @Sendable () -> Void = {},
        onSignal: @escaping @Sendable (Signal) -> Void
    ) throws(Errno) {
        var set = signals.set
        let descriptor = FileDescriptor(owning: try valueOrErrno { loctrack_signal_descriptor(&set) })
        let control = try Control(signals: SharedDescriptor(descriptor))
        self.control = control
        try thread.start(named: "loctrack-signal") {
            Self.run(control, timeout: timeout, onTimeout: onTimeout, onSignal: onSignal)
        }
    }

    /// Stops the thread and waits until it has ended; later calls do nothing. Called from
    /// a callback (on the watcher's own thread), the join is left to ``ThreadReaper``.
    package func stop() {
        control.stopRequested.store(true, ordering: .sequentiallyConsistent)
        control.wakeUps.wake()
        thread.join()
    }

    deinit { stop() }

    private static func run(
        _ control: Control, timeout: Duration?, onTimeout: @Sendable () -> Void, onSignal: @Sendable (Signal) -> Void
    ) {
        var deadline = timeout.map { Monotonic.milliseconds + $0.milliseconds }
        var descriptors = PollSet(count: 2)
        descriptors.set(0, descriptor: control.signals.rawValue, events: .readable)
        descriptors.set(1, descriptor: control.wakeUps.readDescriptor, events: .readable)
        var record = [UInt8](repeating: 0, count: Int(loctrack_signal_record_size()))
        while !control.stopRequested.load(ordering: .sequentiallyConsistent) {
            var wait: Int32 = -1
            if let due = deadline {
                let remaining = due - Monotonic.milliseconds
                if remaining <= 0 {
                    deadline = nil
                    onTimeout()
                    continue
                }
                wait = Int32(clamping: remaining)
            }
            // A failed poll (ENOMEM) only goes round again: the flag and the deadline are
            // checked, and the signals stay pending in the signalfd meanwhile.
            _ = try? descriptors.wait(milliseconds: wait)
            if !descriptors.returned(1).isEmpty { control.wakeUps.drain() }
            // Every pending signal, one record each, until the non-blocking read would block.
            while let count = try? valueOrErrno({
                record.withUnsafeMutableBytes { read(control.signals.rawValue, $0.baseAddress!, $0.count) }
            }), count == record.count {
                let number = record.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                onSignal(Signal(rawValue: Int32(bitPattern: number)))
            }
        }
    }
}
