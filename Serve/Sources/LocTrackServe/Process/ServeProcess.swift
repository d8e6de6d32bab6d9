import LocTrackWeb
import Logging

/// The process around the server, set up before anything starts: signals and logging.
/// Its other calls (stderr, stdout, exit, strerror) are LocTrackWeb's ``ServerProcess``,
/// the root's one system layer, called directly.
public enum ServeProcess {
    /// Run first in `main`, before any thread starts: SIGINT and SIGTERM are blocked in
    /// every thread (threads inherit the mask), so they wait for
    /// `ServerProcess.terminationSignals()` (a signalfd, which only sees blocked signals)
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
}
