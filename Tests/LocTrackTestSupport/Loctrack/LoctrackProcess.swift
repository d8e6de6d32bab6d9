import Foundation
import Glibc

/// The built `loctrack` executable, run the way a shell pipeline runs it: stdout
/// and stderr are pipes (not a terminal), stdin is `/dev/null`, signal
/// dispositions and the signal mask are the defaults.
///
/// ```swift
/// let result = try await LoctrackProcess.run(["once", fake.sourceArgument])
/// #expect(result.status == .exited(0))
/// ```
package enum LoctrackProcess {
    /// `loctrack` next to the test bundle (`.build/<triple>/debug/`): `swift test` builds it too.
    package static var executablePath: String {
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
    package enum Stdout: Sendable {
        /// A pipe the test reads.
        case pipe
        /// A pipe the test closes after reading `lines` lines, like `loctrack … | head -n lines`.
        case pipeClosedAfter(lines: Int)
        /// A file, e.g. `/dev/full` to make every write fail.
        case file(String)
    }

    /// Starts loctrack with `arguments` (without the program name).
    /// - Parameter environment: additions to this process's environment (e.g. `XDG_STATE_HOME`).
    package static func start(
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
    package enum Interruption: Sendable {
        /// Once stdout has this many complete lines (fixes).
        case afterLines(Int, signal: Int32)
        /// After a delay from the start.
        case after(Duration, signal: Int32)
    }

    /// Runs loctrack to the end (killing it and throwing after `timeLimit`) and returns what it did.
    ///
    /// - Parameter interrupt: a signal to send on the way, e.g. `.afterLines(3, signal: SIGINT)`.
    package static func run(
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
