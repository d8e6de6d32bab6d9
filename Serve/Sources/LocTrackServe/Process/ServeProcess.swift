// The few libc calls of the glue. The root package keeps libc behind LocTrackSystem, whose
// API is `package` (not visible from this package), so the glue makes these itself.
import Glibc
import Logging

/// The process around the server: signals, logging, stderr, exit.
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
    /// ``announce(_:)``'s.
    public static func prepare(verbose: Bool) {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        _ = signal(SIGPIPE, SIG_IGN)
        LoggingSystem.bootstrap { label in
            guard verbose else { return SwiftLogNoOpLogHandler() }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
    }

    /// One line on stderr, written at once (stderr may be a pipe a test reads).
    public static func printError(_ line: String) {
        writeAll(2, Array(line.utf8) + [UInt8(ascii: "\n")])
    }

    /// `text` on stdout as it is (`--help`; nothing else is ever written there).
    public static func printOutput(_ text: String) {
        writeAll(1, Array(text.utf8))
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result > 0 {
                written += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                return  // the reader is gone: nothing else to tell it with
            }
        }
    }

    /// The system's words for an errno value (`strerror(3)`): "Address already in use".
    static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// Ends the process now with `code`.
    public static func exit(_ code: Int32) -> Never {
        Glibc.exit(code)
    }
}
