import LocTrackWeb
import Logging

/// The process around the server: signals, logging, stderr, exit. The system calls are
/// LocTrackWeb's ``ServerProcess`` (the root's one system layer), not libc's here.
public enum ServeProcess {
    /// Run first in `main`, before any thread starts: SIGINT and SIGTERM are blocked in
    /// every thread (threads inherit the mask), so they wait for the signal sequence
    /// (Dispatch reads them through a signalfd on Linux, which only sees blocked signals)
    /// instead of killing the process mid-answer. `loctrack serve` blocks them the same
    /// way before it execs this program, and the mask survives exec. A write to a client
    /// that went away must give EPIPE, not end the process.
    ///
    /// Hummingbird's and NIO's loggers go to stderr at `info` with `verbose`, else
    /// nowhere: stdout is never written, and the one line of a normal start is
    /// the listening line.
    public static func prepare(verbose: Bool) {
        ServerProcess.blockTerminationSignals()
        ServerProcess.ignoreBrokenPipes()
        LoggingSystem.bootstrap { label in
            guard verbose else { return SwiftLogNoOpLogHandler() }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
    }

    /// One line on stderr, written at once (stderr may be a pipe a test reads).
    public static func printError(_ line: String) {
        ServerProcess.printError(line)
    }

    /// `text` on stdout as it is (`--help`; nothing else is ever written there).
    public static func printOutput(_ text: String) {
        ServerProcess.printOutput(text)
    }

    /// The system's words for an errno value (`strerror(3)`): "Address already in use".
    static func describe(errno code: Int32) -> String {
        ServerProcess.describe(errno: code)
    }

    /// Ends the process now with `code`.
    public static func exit(_ code: Int32) -> Never {
        ServerProcess.exit(code)
    }
}
