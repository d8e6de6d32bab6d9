import LocTrack
import LocTrackMQTT
import Synchronization
import LocTrackSystem
public import LocTrackProcess
import LocTrackSinks

/// The `loctrack` program: parse, run, return an exit code.
public enum CLI {
    /// Call first thing in `main`, before any thread starts: SIGINT and SIGTERM are
    /// then handled by loctrack (flush, close, exit) instead of killing it mid-write.
    public static func prepareProcess() {
        TerminationSignals.block()
        useOneMallocArena()
    }

    /// Runs loctrack on the calling (main) thread, which runs its async code (a
    /// ``ConsumerExecutor`` that it owns) until it is done. Every gpsd session the commands
    /// make is given that executor (`consumersRunOn:`): their reader thread runs the
    /// consumer when it has just resumed it, so a fix at 1 Hz wakes one thread, and a quiet
    /// watch none (docs/library.md, "One wake-up per fix, by design").
    ///
    /// An async `main` would park the main thread in libdispatch's `dispatch_main`,
    /// which waits in `sigsuspend` with every signal unblocked, so SIGINT would
    /// kill the process instead of reaching loctrack's signal thread. Here the
    /// main thread runs loctrack's tasks with SIGINT and SIGTERM still blocked.
    public static func runBlocking(_ arguments: [String]) -> ExitCode {
        let executor = ConsumerExecutor()
        let result = Mutex(ExitCode.success)
        Task(executorPreference: executor) {
            let code = await run(arguments, consumersRunOn: executor)
            result.withLock { $0 = code }
            executor.stop()
        }
        executor.run()
        return result.withLock { $0 }
    }

    /// Runs loctrack with `arguments` (including the program name) and returns its exit code.
    public static func run(_ arguments: [String]) async -> ExitCode {
        await run(arguments, consumersRunOn: nil)
    }

    /// ``run(_:)`` whose gpsd sessions lend their reader thread to `executor`, the executor
    /// the calling task prefers (nil: they lend it to nobody).
    static func run(_ arguments: [String], consumersRunOn executor: ConsumerExecutor?) async -> ExitCode {
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
            return await StreamCommand(options: options, output: output, consumerExecutor: executor).run()
        case .once(let options):
            return await OnceCommand(options: options, output: output, consumerExecutor: executor).run()
        case .monitor(.add(let options)):
            return await MonitorAddCommand(options: options).run()
        case .monitor(.remove(let identifier, let name)):
            return await MonitorRemoveCommand(identifier: identifier, name: name).run()
        case .monitor(.list(let name, let format)):
            return await MonitorListCommand(name: name, format: format, output: output).run()
        case .monitor(.run(let options)):
            return await MonitorRunCommand(options: options, output: output, consumerExecutor: executor).run()
        case .monitor(.export(let name, _)):
            return await MonitorExportCommand(name: name, output: output).run()
        case .serve(let options):
            return ServeCommand(options: options).run()
        case .trips(let options):
            return TripsCommand(options: options, stdoutIsTerminal: output.isTerminal).run()
        case .odometer(let options):
            return OdometerCommand(options: options, output: output).run()
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
