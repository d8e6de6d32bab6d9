import LocTrackSystem

/// The process calls `loctrack-serve` makes (Serve/), through the one system layer.
///
/// LocTrackSystem's API is `package`: another package cannot see it, and the server is a
/// package of its own. Rather than let the glue import Glibc beside it, the few calls it
/// needs are made public here, as thin as LocTrackSystem's own.
public enum ServerProcess {
    private static let terminationSignalSet = SignalSet([.interrupt, .terminate])

    /// SIGINT and SIGTERM blocked in the calling thread, and so in every thread it starts
    /// (threads inherit the mask): they wait for ``terminationSignals()`` instead of ending
    /// the process mid-answer. Call it first.
    public static func blockTerminationSignals() {
        terminationSignalSet.blockInCallingThread()
    }

    /// SIGINT and SIGTERM as they arrive (their numbers), read by LocTrackSystem's
    /// `SignalWatcher`: the thread `loctrack-signal`, asleep in `poll()` on a signalfd and a
    /// wake-up pipe, the one mechanism `loctrack`'s commands use too. The thread is stopped
    /// and joined when the stream ends (its iteration is cancelled, or it is released).
    /// - Throws: the system's reason (an `Errno`) when the thread or its descriptors
    ///   cannot be made.
    public static func terminationSignals() throws -> AsyncStream<Int32> {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let watcher = try SignalWatcher(terminationSignalSet) { signal in continuation.yield(signal.rawValue) }
        continuation.onTermination = { _ in watcher.stop() }
        return signals
    }

    /// A write to a client that went away gives EPIPE, not the end of the process.
    public static func ignoreBrokenPipes() {
        ignoreSignal(.brokenPipe)
    }

    /// One line on stderr, written at once (stderr may be a pipe a test reads). A stderr
    /// that is gone is ignored: there is no one left to tell.
    public static func printError(_ line: String) {
        try? writeAll(StandardDescriptor.error, line + "\n")
    }

    /// `text` on stdout as it is (`--help`; nothing else is ever written there). A stdout
    /// that is gone is ignored: `--help | head -1` has what it wanted.
    public static func printOutput(_ text: String) {
        try? writeAll(StandardDescriptor.output, text)
    }

    /// The system's words for an errno value (`strerror(3)`): "Address already in use".
    public static func describe(errno code: Int32) -> String {
        Errno(code: code).description
    }

    /// Parks the calling (main) thread for good, with SIGINT and SIGTERM still blocked in
    /// it, while the server runs on other threads and ends the process itself (``exit(_:)``).
    ///
    /// Not an async `main`: that parks the main thread in libdispatch's `dispatch_main`,
    /// which waits in `sigsuspend` with every signal unblocked, so a SIGTERM would be
    /// delivered there and end the process instead of reaching the signal thread's
    /// signalfd (as in `loctrack`, whose main thread runs its tasks with the signals blocked).
    public static func parkMainThread() -> Never {
        let never = Semaphore()
        while true { never.wait() }
    }

    /// Ends the process now with `code`, stdio flushed.
    public static func exit(_ code: Int32) -> Never {
        exitProcess(code)
    }
}
