import LocTrack
import LocTrackMonitor
import Synchronization
import LocTrackSystem
import LocTrackProcess
import LocTrackSinks

/// How a command that runs until a signal ends (`stream`, `monitor run`): the first
/// SIGINT/SIGTERM finishes the session, which lets the loop write what it has and
/// end; a second exits at once; and the exit code follows from what ended the loop.
/// The signal thread is this object's: joined when the command lets go of it.
final class StreamShutdown: Sendable {
    /// The first signal received (0: none), shared with the watcher's callback.
    private final class Received: Sendable {
        let signal = Atomic<Int32>(0)
    }

    private let received: Received
    private let watcher: SignalWatcher

    private init(received: Received, watcher: SignalWatcher) {
        self.received = received
        self.watcher = watcher
    }

    /// Starts the signal thread for `session`.
    /// - Parameter duration: `--duration`: finish the session when it has passed.
    /// - Throws: the `Errno` of a signal thread that could not start.
    static func start(finishing session: GPSDSession, after duration: Duration? = nil) throws(Errno) -> StreamShutdown {
        let received = Received()
        let watcher = try TerminationSignals.watch(timeout: duration, onTimeout: { session.finish() }) { signal in
            // A second signal means "now": the first one's graceful drain is taking too long.
            if received.signal.exchange(signal.rawValue, ordering: .sequentiallyConsistent) != 0 {
                exitImmediately(128 + signal.rawValue)
            }
            session.finish()
        }
        return StreamShutdown(received: received, watcher: watcher)
    }

    private var signalled: Bool { received.signal.load(ordering: .sequentiallyConsistent) != 0 }

    /// Waits for every sink to send everything, then says how the command ended: a failed
    /// sink (74, or 69 for a broker that refused the login) first, the first one given
    /// when several failed (each says why on stderr), then `failure` (the loop's error: 69
    /// for gpsd's, a monitor's own code for its state file) unless a signal ended the loop.
    func exitCode(sinks: SinkFanOut, failure: (any Error)?) async -> ExitCode {
        exitCode(outcomes: await finish(sinks), failure: failure)
    }

    /// Finishes every sink: promptly after a signal (a broker's backlog then waits in the
    /// spool for the next start).
    func finish(_ sinks: SinkFanOut) async -> [SinkOutcome] {
        await sinks.finish(promptly: signalled)
    }

    /// The exit code from the sinks' `outcomes` (each failure's line printed) and `failure`
    /// (see ``exitCode(sinks:failure:)``).
    func exitCode(outcomes: [SinkOutcome], failure: (any Error)?) -> ExitCode {
        Self.exitCode(outcomes: outcomes, failure: failure, signalled: signalled)
    }

    /// The rule of ``exitCode(outcomes:failure:)``, given whether a signal ended the loop.
    static func exitCode(outcomes: [SinkOutcome], failure: (any Error)?, signalled: Bool) -> ExitCode {
        var firstFailure: ExitCode?
        for case .failed(let code, let message) in outcomes {
            if !message.isEmpty { printError(message) }  // empty: said already (the track writer)
            firstFailure = firstFailure ?? code
        }
        if let firstFailure { return firstFailure }
        if let error = failure as? GeofenceError {
            printError(error.description)
            return error.exitCode
        }
        guard let failure, !signalled else { return .success }
        printError("\(failure)")
        return .unavailable
    }
}
