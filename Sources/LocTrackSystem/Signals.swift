internal import CGlibcExtras
import Glibc

/// A signal number, with names for the signals loctrack handles.
package struct Signal: RawRepresentable, Hashable, Sendable {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `SIGINT`: Ctrl-C.
    package static var interrupt: Signal { Signal(rawValue: SIGINT) }
    /// `SIGTERM`: a polite kill.
    package static var terminate: Signal { Signal(rawValue: SIGTERM) }
    /// `SIGHUP`: the terminal went away.
    package static var hangUp: Signal { Signal(rawValue: SIGHUP) }
    /// `SIGPIPE`: a write to a pipe or socket nobody reads.
    package static var brokenPipe: Signal { Signal(rawValue: SIGPIPE) }
}

/// A set of signals (`sigset_t`, built with `sigemptyset(3)` and `sigaddset(3)`).
package struct SignalSet: Sendable {
    var set = sigset_t()

    package init(_ signals: [Signal]) {
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal.rawValue) }
    }

    /// Adds `signals` to the calling thread's blocked mask; threads started after
    /// inherit it. The C function is `pthread_sigmask(3)` with `SIG_BLOCK`, whose only
    /// error (EINVAL, a bad `how`) the constant rules out.
    package func blockInCallingThread() {
        var set = set
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}

/// Makes `signal` do nothing from now on (`SIG_IGN`). The C function is `signal(2)`.
package func ignoreSignal(_ signal: Signal) {
    _ = Glibc.signal(signal.rawValue, SIG_IGN)
}
