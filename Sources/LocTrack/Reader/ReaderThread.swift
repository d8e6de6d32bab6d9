import LocTrackSystem
/// The one thread that talks to gpsd.
///
/// It connects (through a ``ConnectAttempt``, so that it stays stoppable while
/// libgps blocks in `connect()`), sends the `?WATCH`, then sleeps in `poll()` on
/// the gpsd socket and its wake-up pipe (``ReaderControl``). Each wake-up drains
/// every complete line; a partial line just waits in the framer (no spinning).
/// TPVs go through libgps's parser and the epoch merger, and everything one
/// wake-up produced is handed on as one batch (``ReaderOutput``) to the serial
/// processor, whose `submit` never blocks.
///
/// Stopping: ``ReaderControl/requestStop(flushing:)`` sets a flag and wakes the
/// pipe; the thread wakes within a millisecond, turns the watch off, closes the
/// socket, and sends ``ReaderEvent/ended``.
///
/// This object is what the thread runs; the thread itself belongs to whoever holds the
/// handle ``start()`` returns (the session's record of the connection), which joins it.
/// The thread holds this object, never its handle, so the handle's last release can
/// happen elsewhere than on the reader thread.
final class ReaderThread: Sendable {
    let source: GPSDSource
    let reconnectPolicy: ReconnectPolicy
    let reportsSatellites: Bool
    let timings: ReaderTimings
    let control: ReaderControl
    /// The executor the consumers run on, which the reader lends its thread to before it sleeps.
    let consumerExecutor: ConsumerExecutor?
    private let connector: any GPSDConnector
    private let deliver: @Sendable ([ReaderEvent]) -> Void

    init(
        source: GPSDSource, reconnectPolicy: ReconnectPolicy = .never, reportsSatellites: Bool = false,
        connector: any GPSDConnector = LibgpsConnector(), timings: ReaderTimings = .standard,
        control: ReaderControl, consumerExecutor: ConsumerExecutor? = nil,
        deliver: @escaping @Sendable ([ReaderEvent]) -> Void
    ) {
        self.source = source
        self.reconnectPolicy = reconnectPolicy
        self.reportsSatellites = reportsSatellites
        self.connector = connector
        self.timings = timings
        self.control = control
        self.consumerExecutor = consumerExecutor
        self.deliver = deliver
    }

    /// Starts the thread, `owner`'s from then on: joined when the owner goes.
    func start(ownedBy owner: borrowing ThreadOwner) throws(LocTrackError) {
        do throws(Errno) {
            try owner.start(named: "loctrack-gpsd") { [self] in run() }
        } catch {
            throw LocTrackError(.cannotConnect, source: source, failedCall: "starting the reader thread", error)
        }
    }

    private func run() {
        let output = ReaderOutput(deliver: deliver)
        let assembler = FixAssembler(sink: output.send)
        assembler.sendsProvisionalFixes = { [control] in control.sendsProvisionalFixes }
        let handler = ReportHandler(source: source, assembler: assembler, reportsSatellites: reportsSatellites, sink: output.send)
        var backoff = Backoff(reconnectPolicy)
        defer { output.flush() }
        while true {
            let failure: LocTrackError
            switch connectAndRead(handler: handler, output: output) {
            case .stopped:
                end(assembler, output)
                return
            case .failed(let error, let wasServing):
                failure = error
                if wasServing { backoff.reset() }
            }
            // Whatever was assembled before the failure was accepted: deliver it.
            assembler.flush()
            // A connection that fails once a stop is asked for (gpsd's reset reaching the read
            // before the stop flag does) is the end the caller asked for: no outage to wait
            // out, and no "waiting for gpsd" line for a command that is already ending.
            if control.isStopRequested {
                end(assembler, output)
                return
            }
            guard reconnectPolicy.enabled, failure.isWorthRetrying else {
                output.send(.failed(failure))
                return
            }
            let delay = backoff.nextDelayMilliseconds()
            output.send(.status(.waiting(failure, retryIn: .milliseconds(delay))))
            output.flush()
            if waitForStop(milliseconds: Int64(delay)) {
                end(assembler, output)
                return
            }
        }
    }

    private func end(_ assembler: FixAssembler, _ output: ReaderOutput) {
        if control.stopRequest == .flushing { assembler.flush() }
        output.send(.ended)
    }

    private enum ConnectionOutcome {
        case stopped
        /// `wasServing`: gpsd had greeted us, so the next outage starts its backoff afresh.
        case failed(LocTrackError, wasServing: Bool)
    }

    private func connectAndRead(handler: ReportHandler, output: ReaderOutput) -> ConnectionOutcome {
        if control.isStopRequested { return .stopped }
        output.flush()
        guard let connected = connect() else { return .stopped }
        let transport: any GPSDTransport
        switch connected {
        case .success(let opened): transport = opened
        case .failure(let error): return .failed(error, wasServing: false)
        }
        if control.isStopRequested { return .stopped }
        let session = ReaderSession(
            transport: transport, source: source, handler: handler, timings: timings, control: control, output: output,
            consumerExecutor: consumerExecutor)
        switch session.run() {
        case .stopped:
            Unwatch.send(on: transport, grace: timings.unwatchReply)
            return .stopped
        case .failed(let error):
            return .failed(error, wasServing: handler.sawBanner)
        }
    }

    /// Connects with a deadline. Returns nil when a stop was requested meanwhile.
    private func connect() -> Result<any GPSDTransport, LocTrackError>? {
        let attempt: ConnectAttempt
        do {
            attempt = try ConnectAttempt(connector: connector, source: source, control: control)
        } catch {
            return .failure(LocTrackError(.cannotConnect, source: source, failedCall: "starting the connect thread", error))
        }
        let deadline = Monotonic.milliseconds + timings.connect.milliseconds
        while true {
            if control.isStopRequested {
                attempt.abandon()
                return nil
            }
            if let result = attempt.take() { return result }
            let remaining = deadline - Monotonic.milliseconds
            if remaining <= 0 {
                attempt.abandon()
                return .failure(LocTrackError(.cannotConnect, source: source, reason: "no answer within \(timings.connect.spoken)"))
            }
            // A failed poll (ENOMEM) goes round again: the stop, the attempt and the
            // deadline are checked each time.
            _ = try? control.wakeUps.wait(milliseconds: Int32(clamping: remaining))
        }
    }

    /// Sleeps up to `milliseconds`; returns true when a stop was requested.
    private func waitForStop(milliseconds: Int64) -> Bool {
        let deadline = Monotonic.milliseconds + milliseconds
        while !control.isStopRequested {
            let remaining = deadline - Monotonic.milliseconds
            if remaining <= 0 { return false }
            _ = try? control.wakeUps.wait(milliseconds: Int32(clamping: remaining))  // as in connect()
        }
        return true
    }
}

extension LocTrackError {
    /// Whether waiting for gpsd might help. An ERROR reply (unknown device) will not go away.
    var isWorthRetrying: Bool {
        code == .cannotConnect || code == .connectionLost || code == .notGPSD
    }
}

extension Duration {
    /// "2 s", "1.5 s", "50 ms": for messages that name a time limit.
    var spoken: String {
        let total = milliseconds
        if total < 1000 { return "\(total) ms" }
        return total % 1000 == 0 ? "\(total / 1000) s" : "\(total / 1000).\(total % 1000 / 100) s"
    }
}
