import Glibc
import LocTrack
import Synchronization

/// The `loctrack` program: parse, run, return an exit code.
public enum CLI {
    /// Call first thing in `main`, before any thread starts: SIGINT and SIGTERM are
    /// then handled by loctrack (flush, close, exit) instead of killing it mid-write.
    public static func prepareProcess() {
        SignalWatcher.blockTerminationSignals()
    }

    /// Runs loctrack on the calling (main) thread, which blocks until it is done.
    ///
    /// An async `main` would park the main thread in libdispatch's `dispatch_main`,
    /// which waits in `sigsuspend` with every signal unblocked, so SIGINT would
    /// kill the process instead of reaching loctrack's signal thread. Here the
    /// main thread waits on a semaphore with SIGINT and SIGTERM still blocked.
    public static func runBlocking(_ arguments: [String]) -> ExitCode {
        let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(done, 0, 0)
        let result = Mutex(ExitCode.success)
        // sem_post and sem_wait are thread-safe; the address crosses into the task as a plain integer.
        let semaphoreAddress = Int(bitPattern: done)
        Task.detached {
            let code = await run(arguments)
            result.withLock { $0 = code }
            if let semaphore = UnsafeMutablePointer<sem_t>(bitPattern: semaphoreAddress) { sem_post(semaphore) }
        }
        while sem_wait(done) != 0 && errno == EINTR {}
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
        case .stream(let options):
            return await StreamCommand(options: options, output: output).run()
        case .once(let options):
            return await OnceCommand(options: options, output: output).run()
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
        let format = options.format ?? .default(stdoutIsTerminal: output.isTerminal)
        var encoder = format.makeEncoder()
        var filter = FixFilter(
            minimumAccuracy: options.minimumAccuracy, minimumDistance: options.minimumDistance,
            intervalSeconds: options.intervalSeconds)
        // Where the track breaks, as positions in the fix sequence: a status is handled
        // when it happens, while fixes before it may still wait in this consumer's queue.
        let trackBreaks = TrackBreaks()
        let reporter = StatusReporter(verbose: options.verbose)
        let sessionBox = Mutex<GPSDSession?>(nil)
        let session = GPSDSession(
            source: options.source, reconnectPolicy: options.reconnect ? .automatic : .never,
            statusHandler: { status in
                if status.breaksTrack, let session = sessionBox.withLock({ $0 }) {
                    trackBreaks.add(before: session.fixesDelivered)
                }
                reporter.report(status)
            })
        sessionBox.withLock { $0 = session }
        let stopSignal = Atomic<Int32>(0)
        SignalWatcher.start { signal in
            // A second signal means "now": the first one's graceful drain is taking too long.
            if stopSignal.exchange(signal, ordering: .sequentiallyConsistent) != 0 { _exit(128 + signal) }
            session.finish()
        }
        let durationTimer = options.durationSeconds.map { seconds in
            Task {
                try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                session.finish()
            }
        }
        defer { durationTimer?.cancel() }
        let writer = OutputWriter(descriptor: output.descriptor) { session.finish() }
        writer.enqueue(encoder.begin())
        var delivered = 0
        var received = 0
        var failure: (any Error)?
        do {
            for try await fix in session.fixes() {
                defer { received += 1 }
                if trackBreaks.take(upTo: received) { encoder.breakTrack() }
                guard filter.accept(fix) else { continue }
                guard await writer.enqueueAllowingHiccups(encoder.encode(fix)) else { break }
                delivered += 1
                if let count = options.count, delivered >= count { break }
            }
        } catch {
            failure = error
        }
        session.finish()
        writer.enqueue(encoder.end())
        switch await writer.finish() {
        case .written, .closed:
            break
        case .failed(let code):
            printError("cannot write output: \(String(cString: strerror(code)))")
            return .outputFailed
        }
        guard let failure, stopSignal.load(ordering: .sequentiallyConsistent) == 0 else { return .success }
        printError("\(failure)")
        return .unavailable
    }
}

/// Positions in the fix sequence before which the track breaks.
final class TrackBreaks: Sendable {
    private let positions = Mutex<[Int]>([])

    func add(before position: Int) {
        positions.withLock { $0.append(position) }
    }

    /// Whether a break falls at or before `position` (and forgets those breaks).
    func take(upTo position: Int) -> Bool {
        positions.withLock { positions in
            guard let first = positions.first, first <= position else { return false }
            positions.removeAll { $0 <= position }
            return true
        }
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
        SignalWatcher.start { signal in
            statusLine?.erase()
            _exit(signal == SIGINT ? ExitCode.interrupted.rawValue : ExitCode.terminated.rawValue)
        }
        let reporter = StatusReporter(verbose: options.verbose)
        let session = GPSDSession(
            source: options.source, reportsSatellites: statusLine != nil,
            statusHandler: { status in
                statusLine?.update(status)
                reporter.report(status)
            })
        let drawing = statusLine.map { line in Task { await line.run() } }
        let maximumAge: Duration? =
            options.maximumAgeSeconds > 0 ? .milliseconds(Int64(options.maximumAgeSeconds * 1000)) : nil
        var progress: (@Sendable (Fix) -> Void)?
        if let statusLine { progress = { fix in statusLine.consider(fix) } }
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
            var encoder = format.makeEncoder()
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
        printError("cannot write output: \(String(cString: strerror(code)))")
        return .outputFailed
    }
}
