import LocTrack
import LocTrackSystem
import LocTrackFormats
import LocTrackProcess
import LocTrackSinks

/// `loctrack once`: the first fix that meets the bar, or exit 75 at the timeout.
struct OnceCommand {
    let options: Command.OnceOptions
    let output: StandardOutput
    /// The executor this command's task runs on, given to its gpsd session (``CLI/runBlocking(_:)``).
    let consumerExecutor: ConsumerExecutor?

    func run() async -> ExitCode {
        let format = options.format ?? .default(stdoutIsTerminal: output.isTerminal)
        let statusLine = WaitingStatusLine.isUseful ? WaitingStatusLine() : nil
        // Nothing has been accepted yet, so a signal has nothing to flush.
        let signals: SignalWatcher
        do {
            signals = try TerminationSignals.watch { signal in
                statusLine?.erase()
                exitImmediately(signal == .interrupt ? ExitCode.interrupted.rawValue : ExitCode.terminated.rawValue)
            }
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        defer { signals.stop() }
        let reporter = StatusReporter(verbose: options.verbose)
        let session = GPSDSession(
            source: options.source, reportsSatellites: statusLine != nil, consumersRunOn: consumerExecutor)
        let drawing = statusLine.map { line in Task { await line.run() } }
        let maximumAge: Duration? =
            options.maximumAgeSeconds > 0 ? .milliseconds(Int64(options.maximumAgeSeconds * 1000)) : nil
        let progress: @Sendable (GPSDEvent) -> Void = { event in
            switch event {
            case .fix(let fix):
                statusLine?.consider(fix)
            case .status(let status):
                reporter.report(status)
            case .sky(let view):
                statusLine?.update(view)
            }
        }
        let result: Result<Fix, any Error>
        do {
            result = .success(try await session.firstFix(
                minimumAccuracy: options.minimumAccuracy,
                timeout: .milliseconds(Int64(options.timeoutSeconds * 1000)),
                maximumAge: maximumAge, progress: progress))
        } catch {
            result = .failure(error)
        }
        drawing?.cancel()
        statusLine?.erase()  // before anything else goes to stderr or stdout
        do {
            let fix = try result.get()
            var encoder = format.makeEncoder(trackerID: options.trackerID)
            try output.write(encoder.begin() + encoder.encode(fix) + encoder.end())
            return .success
        } catch let error as StandardOutput.WriteError {
            return report(error)
        } catch let error as LocTrackError {
            printError(error.description)
            return error.code == .noFixBeforeTimeout ? .noFixInTime : .unavailable
        } catch {
            printError("\(error)")
            return .unavailable
        }
    }
}

private func report(_ error: StandardOutput.WriteError) -> ExitCode {
    switch error {
    case .closed:
        return .success
    case .failed(let code):
        printError("cannot write output: \(Errno(code: code))")
        return .outputFailed
    }
}
