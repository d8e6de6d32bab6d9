import Foundation
import Glibc
import Synchronization

/// The built `loctrack` executable, run the way a shell pipeline runs it: stdout
/// and stderr are pipes (not a terminal), stdin is `/dev/null`, signal
/// dispositions and the signal mask are the defaults.
///
/// ```swift
/// let result = try await LoctrackProcess.run(["once", fake.sourceArgument])
/// #expect(result.status == .exited(0))
/// ```
enum LoctrackProcess {
    /// `loctrack` next to the test bundle (`.build/<triple>/debug/`): `swift test` builds it too.
    static var executablePath: String {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
        // On Linux the test binary is `…/debug/loctrackPackageTests.xctest`; on other layouts walk up.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("loctrack").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("loctrack").path
    }

    /// Where loctrack's stdout goes.
    enum Stdout: Sendable {
        /// A pipe the test reads.
        case pipe
        /// A pipe the test closes after reading `lines` lines, like `loctrack … | head -n lines`.
        case pipeClosedAfter(lines: Int)
        /// A file, e.g. `/dev/full` to make every write fail.
        case file(String)
    }

    /// Starts loctrack with `arguments` (without the program name).
    /// - Parameter environment: additions to this process's environment (e.g. `XDG_STATE_HOME`).
    static func start(
        _ arguments: [String], stdout: Stdout = .pipe, environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let path = executablePath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("loctrack is not built at \(path): run `swift build` first")
        }
        let output: ChildProcess.Output
        var closeAfter: Int?
        switch stdout {
        case .pipe: output = .pipe
        case .pipeClosedAfter(let lines):
            output = .pipe
            closeAfter = lines
        case .file(let file): output = .file(file)
        }
        return try ChildProcess(
            executable: path, arguments: [path] + arguments, environment: environment, stdin: .null, stdout: output,
            stderr: .pipe, closeStdoutAfterLines: closeAfter)
    }

    /// A signal sent to loctrack while it runs.
    enum Interruption: Sendable {
        /// Once stdout has this many complete lines (fixes).
        case afterLines(Int, signal: Int32)
        /// After a delay from the start.
        case after(Duration, signal: Int32)
    }

    /// Runs loctrack to the end (killing it and throwing after `timeLimit`) and returns what it did.
    ///
    /// - Parameter interrupt: a signal to send on the way, e.g. `.afterLines(3, signal: SIGINT)`.
    static func run(
        _ arguments: [String], stdout: Stdout = .pipe, environment: [String: String] = [:],
        interrupt: Interruption? = nil, timeLimit: Duration = .seconds(20)
    ) async throws -> LoctrackResult {
        let process = try start(arguments, stdout: stdout, environment: environment)
        switch interrupt {
        case .afterLines(let count, let signal):
            // If loctrack ends before that, result() reports what it did.
            if (try? await process.waitForStdoutLines(count, timeout: timeLimit)) != nil { process.signal(signal) }
        case .after(let delay, let signal):
            try await Task.sleep(for: delay)
            process.signal(signal)
        case nil:
            break
        }
        return try await process.result(timeLimit: timeLimit)
    }
}

/// What a finished loctrack did.
struct LoctrackResult: Sendable, CustomStringConvertible {
    let status: Termination
    let stdout: String
    let stderr: String
    let duration: Duration

    /// Complete stdout lines (each ended by `\n`).
    var stdoutLines: [String] { stdout.completeLines }
    /// stderr lines (blank ones too), the last one even without `\n`.
    var stderrLines: [String] {
        var lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Every stdout line parsed as a JSON object; throws, naming the line, if one is not.
    func jsonObjects() throws -> [[String: Any]] {
        try stdoutLines.map { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw HarnessError("stdout line is not a JSON object: \(line)")
            }
            return object
        }
    }

    var description: String {
        "loctrack \(status) after \(duration)\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)"
    }
}

/// How a child process ended.
enum Termination: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    var description: String {
        switch self {
        case .exited(let code): "exit status \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Child processes

/// A process started with `posix_spawn`, optionally in a process group of its own,
/// with pipes drained by threads of their own.
final class ChildProcess: Sendable {
    enum Input { case null, pipe }
    enum Output { case null, pipe, file(String) }

    let pid: pid_t
    let stdout: PipeCollector?
    let stderr: PipeCollector?
    let started: ContinuousClock.Instant
    private let stdinWriter: Mutex<Int32>
    private let termination = Mutex<Termination?>(nil)

    /// - Parameters:
    ///   - arguments: the full argv, program name first.
    ///   - environment: additions to this process's environment.
    ///   - newProcessGroup: the child leads a process group of its own (pgid = pid), so
    ///     `signalGroup` reaches it and everything it starts.
    init(
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
            var fds: [Int32] = [-1, -1]
            guard ChildProcess.pipe2(&fds, O_CLOEXEC) == 0 else { throw HarnessError("pipe2: \(String(cString: strerror(errno)))") }
            return (fds[0], fds[1])
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
        let result = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
        childEnds.forEach { _ = close($0) }
        guard result == 0 else {
            parentEnds.forEach { _ = close($0) }
            throw HarnessError("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.started = .now
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
    func writeToStdin(_ text: String) {
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

    func closeStdin() {
        stdinWriter.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    func signal(_ signal: Int32) {
        guard termination.withLock({ $0 }) == nil else { return }
        kill(pid, signal)
    }

    /// Signals the child's whole process group (it must have been started with `newProcessGroup`).
    func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
    }

    /// How the child ended, without waiting; `nil` while it runs.
    func pollTermination() -> Termination? {
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

    /// Blocks until the child has ended (kill it first) and records how.
    func reap() {
        termination.withLock { termination in
            guard termination == nil else { return }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            termination = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        }
    }

    /// Waits for the child to end; `nil` if it is still running after `timeout`.
    func waitForTermination(timeout: Duration) async -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let ended = pollTermination() { return ended }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return pollTermination()
    }

    /// Waits until stdout has at least `count` complete lines.
    func waitForStdoutLines(_ count: Int, timeout: Duration = .seconds(15)) async throws {
        guard let stdout else { throw HarnessError("stdout is not a pipe") }
        try await waitUntil(timeout: timeout, "\(count) stdout lines; have:\n\(stdout.text)\nstderr:\n\(stderr?.text ?? "")") {
            stdout.lineCount >= count || pollTermination() != nil
        }
        if stdout.lineCount < count {
            throw HarnessError("loctrack ended (\(pollTermination().map { "\($0)" } ?? "?")) before \(count) lines:\n\(stdout.text)\nstderr:\n\(stderr?.text ?? "")")
        }
    }

    /// Waits for the end (killing the child after `timeLimit`) and collects everything it wrote.
    func result(timeLimit: Duration = .seconds(20)) async throws -> LoctrackResult {
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

    // glibc's pipe2 is not visible to Swift (it needs _GNU_SOURCE); a pipe with
    // O_CLOEXEC set atomically keeps parallel spawns from inheriting our ends.
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    private static let pipe2: Pipe2 = unsafeBitCast(dlsym(nil, "pipe2")!, to: Pipe2.self)
}

/// Reads a pipe to its end on a thread of its own and keeps what it read.
final class PipeCollector: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var lineCount = 0
        var ended = false
    }

    private let state = Mutex(State())

    /// - Parameter closeAfterLines: close the read end once this many lines have
    ///   arrived (what `head -n` does), keeping only those lines.
    init(fd: Int32, closeAfterLines: Int?) {
        let thread = Thread { [self] in drain(fd, closeAfterLines: closeAfterLines) }
        thread.name = "PipeCollector fd \(fd)"
        thread.start()
    }

    var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    var lineCount: Int { state.withLock { $0.lineCount } }
    var lines: [String] { text.completeLines }
    var ended: Bool { state.withLock { $0.ended } }

    func waitForEnd(timeout: Duration) async {
        try? await waitUntil(timeout: timeout, "pipe end") { ended }
    }

    private func drain(_ fd: Int32, closeAfterLines: Int?) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        readLoop: while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let done = state.withLock { state -> Bool in
                for byte in buffer[0..<count] {
                    state.bytes.append(byte)
                    if byte == UInt8(ascii: "\n") {
                        state.lineCount += 1
                        if let closeAfterLines, state.lineCount >= closeAfterLines { return true }
                    }
                }
                return false
            }
            if done { break readLoop }
        }
        close(fd)
        state.withLock { $0.ended = true }
    }
}

extension String {
    /// The lines that end with `\n` (a trailing partial line is left out).
    var completeLines: [String] {
        var lines = split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // what follows the last "\n" (empty when the text ends with one)
        return lines
    }
}

/// Polls `condition` every 5 ms until it holds; throws after `timeout`.
func waitUntil(timeout: Duration, _ what: @autoclosure () -> String, _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw HarnessError("timed out after \(timeout) waiting for \(what())") }
        try await Task.sleep(for: .milliseconds(5))
    }
}
