import Glibc

extension ChildProcess {
    /// Sends SIGINT and returns what the plain `stream` printed (it exits 0).
    package func interruptedLines() async throws -> [String] {
        signal(SIGINT)
        let result = try await result(timeLimit: .seconds(10))
        guard result.status == .exited(0) else { throw HarnessError("the plain stream did not exit 0 on SIGINT: \(result)") }
        return result.stdoutLines
    }
}
