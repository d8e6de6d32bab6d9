import LocTrackSystem

/// The process calls `loctrack-serve` makes (Serve/), through the one system layer.
///
/// LocTrackSystem's API is `package`: another package cannot see it, and the server is a
/// package of its own. Rather than let the glue import Glibc beside it, the few calls it
/// needs are made public here, as thin as LocTrackSystem's own.
public enum ServerProcess {
    /// SIGINT and SIGTERM blocked in the calling thread, and so in every thread it starts
    /// (threads inherit the mask): they wait for the server's signal sequence, which reads
    /// them through a signalfd, instead of ending the process mid-answer. Call it first.
    public static func blockTerminationSignals() {
        SignalSet([.interrupt, .terminate]).blockInCallingThread()
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

    /// Ends the process now with `code`, stdio flushed.
    public static func exit(_ code: Int32) -> Never {
        exitProcess(code)
    }
}
