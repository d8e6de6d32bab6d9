import Foundation
import Glibc

/// A private `XDG_STATE_HOME` for one test: loctrack's monitors live in `<it>/loctrack/`.
package final class StateHome: Sendable {
    package let path: String

    package init() throws {
        var template = Array((NSTemporaryDirectory() + "/loctrack-state.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed: errno \(errno)") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    package var environment: [String: String] { ["XDG_STATE_HOME": path] }

    /// The state file of monitor `name`.
    package func stateFile(_ name: String = "default") -> String { "\(path)/loctrack/\(name).monitor.json" }

    /// `loctrack ARGUMENTS` with this state home, to the end.
    package func loctrack(_ arguments: [String], timeLimit: Duration = .seconds(20)) async throws -> LoctrackResult {
        try await LoctrackProcess.run(arguments, environment: environment, timeLimit: timeLimit)
    }

    package func start(_ arguments: [String]) throws -> ChildProcess {
        try LoctrackProcess.start(arguments, environment: environment)
    }

    /// Writes `text` to a file in this folder and returns its path.
    package func file(_ name: String, _ text: String) throws -> String {
        let file = "\(path)/\(name)"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
