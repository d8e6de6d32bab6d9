import Foundation
import LocTrackSystem
package import Glibc
import Synchronization


/// A process started with `posix_spawn`, optionally in a process group of its own,
/// with pipes drained by threads of their own.
package final class ChildProcess: Sendable {
    package enum Input { case null, pipe }
    package enum Output { case null, pipe, file(String) }

    package let pid: pid_t
    package let stdout: PipeCollector?
    package let stderr: PipeCollector?
    /// Taken just before `posix_spawn`: the child cannot have started earlier, so a duration
    /// measured from here to its observed end is never shorter than its life, however late
    /// this thread runs again after the spawn.
    package let started: ContinuousClock.Instant
    /// Started with `newProcessGroup`: ``signalGroup(_:)`` reaches it and what it started.
    package let leadsProcessGroup: Bool
    private let stdinWriter: Mutex<Int32>
    private let termination = Mutex<Termination?>(nil)

    /// - Parameters:
    ///   - arguments: the full argv, program name first.
    ///   - environment: additions to this process's environment.
    ///   - newProcessGroup: the child leads a process group of its own (pgid = pid), so
    ///     `signalGroup` reaches it and everything it starts.
    package init(
        executable: String, arguments: [String], environment: [String: String] = [:],
        stdin: Input, stdout: Output, stderr: Output, newProcessGroup: Bool = true,
        closeStdoutAfterLines: Int? = nil
    ) throws {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        var parentEnds: [Int32] = []  // closed on failure
        var childEnds: [Int32] = []  // closed in the parent after spawning

        func makePipe() throws -> (read: Int32, write: Int32) {
            // Close-on-exec from the start: children other tests start meanwhile must not hold our ends.
            do { return try makeRawPipe() } catch { throw HarnessError("pipe2: \(error)") }
        }

        var stdinWrite: Int32 = -1
        switch stdin {
        case .null:
            posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            let pipe = try makePipe()
            stdinWrite = pipe.write
            parentEnds.append(pipe.write)
            childEnds.append(pipe.read)
            posix_spawn_file_actions_adddup2(&fileActions, pipe.read, 0)
        }
        func route(_ output: Output, to fd: Int32) throws -> Int32? {
            switch output {
            case .null:
                posix_spawn_file_actions_addopen(&fileActions, fd, "/dev/null", O_WRONLY, 0)
                return nil
            case .file(let path):
                posix_spawn_file_actions_addopen(&fileActions, fd, path, O_WRONLY, 0)
                return nil
            case .pipe:
                let pipe = try makePipe()
                parentEnds.append(pipe.read)
                childEnds.append(pipe.write)
                posix_spawn_file_actions_adddup2(&fileActions, pipe.write, fd)
                return pipe.read
            }
        }
        let stdoutRead: Int32?
        let stderrRead: Int32?
        do {
            stdoutRead = try route(stdout, to: 1)
            stderrRead = try route(stderr, to: 2)
        } catch {
            (parentEnds + childEnds).forEach { _ = close($0) }
            throw error
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        // The test process ignores SIGPIPE (libgps needs that); a shell's child would not.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)

        var environmentEntries = ProcessInfo.processInfo.environment
        environmentEntries.merge(environment) { _, new in new }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environmentEntries.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawning = ContinuousClock.now
        let result = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
        childEnds.forEach { _ = close($0) }
        guard result == 0 else {
            parentEnds.forEach { _ = close($0) }
            throw HarnessError("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.started = spawning
        self.leadsProcessGroup = newProcessGroup
        self.stdinWriter = Mutex(stdinWrite)
        self.stdout = stdoutRead.map { PipeCollector(fd: $0, closeAfterLines: closeStdoutAfterLines) }
        self.stderr = stderrRead.map { PipeCollector(fd: $0, closeAfterLines: nil) }
    }

    deinit {
        if pollTermination() == nil {
            kill(pid, SIGKILL)
            reap()
        }
        closeStdin()
    }

    /// Writes to the child's stdin (a pipe).
    package func writeToStdin(_ text: String) {
        stdinWriter.withLock { fd in
            guard fd >= 0 else { return }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    package func closeStdin() {
        stdinWriter.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    package func signal(_ signal: Int32) {
        guard termination.withLock({ $0 }) == nil else { return }
        kill(pid, signal)
    }

    /// Signals the child's whole process group (it must have been started with `newProcessGroup`).
    package func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
    }

    /// How the child ended, without waiting; `nil` while it runs.
    package func pollTermination() -> Termination? {
        termination.withLock { termination in
            if let termination { return termination }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            guard reaped == pid else { return nil }
            let ended: Termination = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
            termination = ended
            return ended
        }
    }

    /// Ends the child: `signal`, then SIGKILL (to its group, if it leads one) when it is
    /// still running after `grace`, then reaps it. Never waits longer than `grace` plus the
    /// reaping of a killed process; a no-op once it ended. For cleanup that cannot be async.
    package func stop(signal first: Int32 = SIGTERM, grace: Duration = .seconds(5)) {
        guard pollTermination() == nil else { return }
        signal(first)
        _ = waitForExit(within: grace)
    }

    /// Blocks until the child ends, at most `limit`: then it is killed (SIGKILL, to its
    /// group if it leads one) and reaped, and the result is nil. For waits that cannot be async.
    package func waitForExit(within limit: Duration) -> Termination? {
        let deadline = ContinuousClock.now + limit
        while pollTermination() == nil, ContinuousClock.now < deadline { usleep(5_000) }
        if let ended = pollTermination() { return ended }
        if leadsProcessGroup { signalGroup(SIGKILL) } else { kill(pid, SIGKILL) }
        reap()
        return nil
    }

    /// Blocks until the child has ended (kill it first) and records how.
    package func reap() {
        termination.withLock { termination in
            guard termination == nil else { return }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            termination = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        }
    }

    /// Waits for the child to end; `nil` if it is still running after `timeout`.
    package func waitForTermination(timeout: Duration) async -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let ended = pollTermination() { return ended }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return pollTermination()
    }

    /// Waits until stdout has at least `count` complete lines.
    package func waitForStdoutLines(_ count: Int, timeout: Duration = .seconds(15)) async throws {
        guard let stdout else { throw HarnessError("stdout is not a pipe") }
        try await waitUntil(timeout: timeout, "\(count) stdout lines; have:\n\(stdout.text)\nstderr:\n\(stderr?.text ?? "")") {
            stdout.lineCount >= count || pollTermination() != nil
        }
        if stdout.lineCount < count {
            throw HarnessError("loctrack ended (\(pollTermination().map { "\($0)" } ?? "?")) before \(count) lines:\n\(stdout.text)\nstderr:\n\(stderr?.text ?? "")")
        }
    }

    /// Waits for the end (killing the child after `timeLimit`) and collects everything it wrote.
    package func result(timeLimit: Duration = .seconds(20)) async throws -> LoctrackResult {
        var status = await waitForTermination(timeout: timeLimit)
        if status == nil {
            kill(pid, SIGKILL)
            _ = await waitForTermination(timeout: .seconds(5))
            throw HarnessError("loctrack did not end within \(timeLimit); killed. stdout:\n\(stdout?.text ?? "")\nstderr:\n\(stderr?.text ?? "")")
        }
        let duration = ContinuousClock.now - started
        // Everything the child wrote is in the pipes once it ended (unless it left a child holding them).
        await stdout?.waitForEnd(timeout: .seconds(5))
        await stderr?.waitForEnd(timeout: .seconds(5))
        status = pollTermination()
        return LoctrackResult(status: status!, stdout: stdout?.text ?? "", stderr: stderr?.text ?? "", duration: duration)
    }
}
