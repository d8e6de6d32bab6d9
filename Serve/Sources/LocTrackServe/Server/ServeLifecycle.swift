/// What `loctrack-serve` does from start to exit, as a pure state machine: the events that
/// happen (the server bound its address or failed to, a signal, the live side ended, the
/// shutdown's deadline passed) go in, and the actions to take come out; ``ServeRun`` runs
/// the actions. The exit codes are docs/exit-codes.md's.
struct ServeLifecycle {
    enum Event: Equatable {
        /// The server listens at `address` (`ADDR:PORT`, `[ADDR]:PORT` for IPv6).
        case listening(address: String)
        /// The server's run ended; `failure` is why, nil when it stopped as asked.
        case serverEnded(failure: String?)
        /// SIGINT or SIGTERM.
        case signal(Int32)
        /// The live side (gpsd into the hub) ended by itself: the process ends with `code`
        /// and `message` once the server has stopped (0 and nil: it had nothing to add).
        case liveEnded(code: Int32, message: String?)
        /// ``ServeLifecycle/shutdownGrace`` passed since the first signal.
        case shutdownDeadline
    }

    enum Action: Equatable {
        /// The one line a user and the tests wait for, on stderr.
        case announce(address: String)
        /// Connect to gpsd and feed the hub.
        case startLive
        /// End the event streams and the gpsd session, then stop the server: it stops
        /// accepting, closes idle connections, and waits for the others to end.
        case stop
        /// Deliver ``Event/shutdownDeadline`` after ``ServeLifecycle/shutdownGrace``.
        case armDeadline
        /// Print `message` (one line, when not nil) and exit with `code`.
        case exit(code: Int32, message: String?)
    }

    /// How long the streams and the connections have to end after the first signal.
    static let shutdownGrace = Duration.seconds(5)

    private enum State {
        case starting
        case running
        /// Exiting with `code` and `message` once the server has stopped.
        case stopping(code: Int32, message: String?)
        case exited
    }

    private var state = State.starting
    /// The listening address as the user gave it, for the message when binding fails.
    private let requested: String

    init(requested: String) {
        self.requested = requested
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch (state, event) {
        case (.exited, _):
            return []
        case (.starting, .listening(let address)):
            state = .running
            return [.announce(address: address), .startLive]
        case (.starting, .serverEnded(let failure)):
            // Nothing was served and gpsd was not contacted.
            state = .exited
            return [.exit(code: 69, message: "loctrack: cannot listen on \(requested): \(failure ?? "the server ended")")]
        case (.starting, .signal):
            state = .exited
            return [.exit(code: 0, message: nil)]
        case (.running, .signal):
            state = .stopping(code: 0, message: nil)
            return [.stop, .armDeadline]
        case (.running, .serverEnded(let failure)):
            // The server ended without being asked (its listening socket failed).
            state = .exited
            return [.stop, .exit(code: 69, message: "loctrack: the server stopped: \(failure ?? "no reason given")")]
        case (.running, .liveEnded(let code, let message)):
            // gpsd's session ended (`--no-reconnect`, a refused watch): serving what can no
            // longer change would show a stale position as live.
            state = .stopping(code: code, message: message)
            return [.stop, .armDeadline]
        case (.stopping, .signal(let number)):
            // A second signal means now, as for stream (docs/exit-codes.md).
            state = .exited
            return [.exit(code: 128 + number, message: nil)]
        case (.stopping(let code, let message), .serverEnded), (.stopping(let code, let message), .shutdownDeadline):
            state = .exited
            return [.exit(code: code, message: message)]
        case (.starting, .liveEnded), (.starting, .shutdownDeadline), (.running, .shutdownDeadline),
            (.running, .listening), (.stopping, .listening), (.stopping, .liveEnded):
            return []
        }
    }
}
