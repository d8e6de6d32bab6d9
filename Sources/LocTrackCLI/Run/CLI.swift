import Glibc
import LocTrack
import LocTrackMQTT
import Synchronization

/// The `loctrack` program: parse, run, return an exit code.
public enum CLI {
    /// Call first thing in `main`, before any thread starts: SIGINT and SIGTERM are
    /// then handled by loctrack (flush, close, exit) instead of killing it mid-write.
    public static func prepareProcess() {
        SignalWatcher.blockTerminationSignals()
        useOneMallocArena()
    }

    /// Runs loctrack on the calling (main) thread, which runs its async code
    /// (``MainThreadExecutor``) until it is done.
    ///
    /// An async `main` would park the main thread in libdispatch's `dispatch_main`,
    /// which waits in `sigsuspend` with every signal unblocked, so SIGINT would
    /// kill the process instead of reaching loctrack's signal thread. Here the
    /// main thread runs loctrack's tasks with SIGINT and SIGTERM still blocked.
    public static func runBlocking(_ arguments: [String]) -> ExitCode {
        let executor = MainThreadExecutor()
        let result = Mutex(ExitCode.success)
        Task(executorPreference: executor) {
            let code = await run(arguments)
            result.withLock { $0 = code }
            executor.stop()
        }
        executor.run()
        return result.withLock { $0 }
    }

    /// Runs loctrack with `arguments` (including the program name) and returns its exit code.
    public static func run(_ arguments: [String]) async -> ExitCode {
        let command: Command
        do {
            command = try Command(arguments: Array(arguments.dropFirst()))
        } catch {
            printError(error.description)
            return .usage
        }
        let output = StandardOutput()
        switch command {
        case .help(let topic):
            return write(HelpText.text(for: topic), to: output)
        case .version:
            return write(HelpText.version + "\n", to: output)
        case .completions(let shell):
            return write(shell.script(), to: output)
        case .stream(let options):
            return await StreamCommand(options: options, output: output).run()
        case .once(let options):
            return await OnceCommand(options: options, output: output).run()
        case .monitor(.add(let options)):
            return await MonitorAddCommand(options: options).run()
        case .monitor(.remove(let identifier, let name)):
            return await MonitorRemoveCommand(identifier: identifier, name: name).run()
        case .monitor(.list(let name, let format)):
            return await MonitorListCommand(name: name, format: format, output: output).run()
        case .monitor(.run(let options)):
            return await MonitorRunCommand(options: options, output: output).run()
        case .recordWriter(let options):
            return TrackWriter(options: options).run()
        }
    }

    private static func write(_ text: String, to output: StandardOutput) -> ExitCode {
        do {
            try output.write(text)
            return .success
        } catch {
            return error == .closed ? .success : .outputFailed
        }
    }
}

/// `loctrack stream`: every accepted fix until a signal, `--count`, `--duration`, a closed pipe or gpsd's end.
struct StreamCommand {
    let options: Command.StreamOptions
    let output: StandardOutput

    func run() async -> ExitCode {
        // Messages to a broker are JSON unless asked otherwise: no terminal reads them.
        // A track file's format follows its name (tracks/%F.gpx).
        let format = options.format ?? options.record.map { OutputFormat(fileName: $0.path.text) }
            ?? (options.publish != nil ? .json : .default(stdoutIsTerminal: output.isTerminal))
        var encoder: any FixEncoder = options.record != nil
            ? RecordFrameEncoder(format: format, trackerID: options.trackerID)
            : format.makeEncoder(trackerID: options.trackerID)
        var filter = FixFilter(
            minimumAccuracy: options.minimumAccuracy, minimumDistance: options.minimumDistance,
            intervalSeconds: options.intervalSeconds)
        let reporter = StatusReporter(verbose: options.verbose)
        let session = GPSDSession(source: options.source, reconnectPolicy: options.reconnect ? .automatic : .never)
        let shutdown: StreamShutdown
        do {
            shutdown = try StreamShutdown.start(
                finishing: session, after: options.durationSeconds.map { .milliseconds(Int64($0 * 1000)) })
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        let sink: any LineSink
        switch SinkChoice.make(
            publish: options.publish, topic: \.broker.topic, ownTracks: format == .owntracks, verbose: options.verbose,
            record: options.record.map { ($0, format) }, output: output, session: session)
        {
        case .ready(let chosen): sink = chosen
        case .failed(let code): return code
        }
        sink.sendFraming(encoder.begin())
        var delivered = 0
        var failure: LocTrackError?
        var events = session.events().makeAsyncIterator()
        do {
            reading: while let batch = try await events.nextBatch() {
                // One chunk of output per batch; a status first writes what came before it.
                var text = OutputBytes()
                var lines = 0
                var done = false
                for event in batch {
                    switch event {
                    case .status(let status):
                        if status.breaksTrack { encoder.breakTrack() }
                        if lines > 0 {
                            guard await sink.send(text, lines: lines) else { break reading }
                            (text, lines) = (OutputBytes(), 0)
                        }
                        reporter.report(status)
                    case .fix(let fix):
                        guard filter.accept(fix) else { continue }
                        encoder.encode(fix, into: &text)
                        lines += 1
                        delivered += 1
                        done = options.count.map { delivered >= $0 } ?? false
                    }
                    if done { break }
                }
                if lines > 0 {
                    guard await sink.send(text, lines: lines) else { break }
                }
                if done { break }
            }
        } catch {
            failure = error
        }
        session.finish()
        sink.sendFraming(encoder.end())
        return await shutdown.exitCode(sink: sink, failure: failure)
    }
}

extension GPSDStatus {
    /// Whether fixes after this are not one continuous track with those before.
    var breaksTrack: Bool {
        switch self {
        case .waiting, .deviceLost, .noFixes, .fixLost: true
        default: false
        }
    }
}

/// `loctrack once`: the first fix that meets the bar, or exit 75 at the timeout.
struct OnceCommand {
    let options: Command.OnceOptions
    let output: StandardOutput

    func run() async -> ExitCode {
        let format = options.format ?? .default(stdoutIsTerminal: output.isTerminal)
        let statusLine = WaitingStatusLine.isUseful ? WaitingStatusLine() : nil
        // Nothing has been accepted yet, so a signal has nothing to flush.
        do {
            try SignalWatcher.start { signal in
                statusLine?.erase()
                _exit(signal == SIGINT ? ExitCode.interrupted.rawValue : ExitCode.terminated.rawValue)
            }
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        let reporter = StatusReporter(verbose: options.verbose)
        let session = GPSDSession(source: options.source, reportsSatellites: statusLine != nil)
        let drawing = statusLine.map { line in Task { await line.run() } }
        let maximumAge: Duration? =
            options.maximumAgeSeconds > 0 ? .milliseconds(Int64(options.maximumAgeSeconds * 1000)) : nil
        let progress: @Sendable (GPSDEvent) -> Void = { event in
            switch event {
            case .fix(let fix):
                statusLine?.consider(fix)
            case .status(let status):
                statusLine?.update(status)
                reporter.report(status)
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

/// Says on stderr, once per outage, that loctrack is waiting for gpsd, and when it is back.
final class StatusReporter: Sendable {
    private let verbose: Bool
    private let waiting = Mutex(false)

    init(verbose: Bool) {
        self.verbose = verbose
    }

    func report(_ status: GPSDStatus) {
        switch status {
        case .waiting(let error, _):
            let firstOfOutage = waiting.withLock { waiting in
                defer { waiting = true }
                return !waiting
            }
            if verbose {
                printError("\(status)")
            } else if firstOfOutage {
                printError("\(error); waiting for gpsd (retrying with backoff up to 30 s)")
            }
        case .connected:
            let wasWaiting = waiting.withLock { waiting in
                defer { waiting = false }
                return waiting
            }
            if verbose || wasWaiting { printError("\(status)") }
        case .deviceLost, .noFixes, .fixesResumed:
            printError("\(status)")
        case .skippedReport, .fixLost:
            if verbose { printError("\(status)") }
        case .satellites:
            break  // for once's status line on a terminal
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
