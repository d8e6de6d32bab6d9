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

/// `loctrack stream`: every accepted fix, one line each, until a signal, a closed pipe or gpsd's end.
struct StreamCommand {
    let options: Command.StreamOptions
    let output: StandardOutput

    func run() async -> ExitCode {
        let format = options.format ?? .default(stdoutIsTerminal: output.isTerminal)
        let session = GPSDSession(source: options.source)
        let stopSignal = Atomic<Int32>(0)
        SignalWatcher.start { signal in
            // A second signal means "now": the first one's graceful drain is taking too long.
            if stopSignal.exchange(signal, ordering: .sequentiallyConsistent) != 0 { _exit(128 + signal) }
            session.finish()
        }
        do {
            for try await fix in session.fixes() where fix.meets(minimumAccuracy: options.minimumAccuracy) {
                try output.write(format.line(for: fix))
            }
            return .success
        } catch let error as StandardOutput.WriteError {
            session.finish()
            return report(error)
        } catch {
            if stopSignal.load(ordering: .sequentiallyConsistent) != 0 { return .success }
            printError("\(error)")
            return .unavailable
        }
    }
}

/// `loctrack once`: the first fix that meets the bar, or exit 75 at the timeout.
struct OnceCommand {
    let options: Command.OnceOptions
    let output: StandardOutput

    func run() async -> ExitCode {
        let format = options.format ?? .default(stdoutIsTerminal: output.isTerminal)
        // Nothing has been accepted yet, so a signal has nothing to flush.
        SignalWatcher.start { signal in _exit(signal == SIGINT ? ExitCode.interrupted.rawValue : ExitCode.terminated.rawValue) }
        let session = GPSDSession(source: options.source)
        do {
            let fix = try await session.firstFix(
                minimumAccuracy: options.minimumAccuracy, timeout: .milliseconds(Int64(options.timeoutSeconds * 1000)))
            try output.write(format.line(for: fix))
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
        printError("cannot write output: \(String(cString: strerror(code)))")
        return .outputFailed
    }
}
