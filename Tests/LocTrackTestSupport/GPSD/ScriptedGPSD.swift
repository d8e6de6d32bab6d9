import Foundation
import Glibc

/// `scripts/fake_gpsd.py` on a free loopback port, replaying `lines` (gpsd JSON
/// reports) to each client after its `?WATCH` and then hanging up. Stopped with
/// SIGTERM afterwards, also when `body` throws.
package func withScriptedGPSD<Result>(_ lines: [String], _ body: (ScriptedGPSD) async throws -> Result) async throws -> Result {
    let server = try await ScriptedGPSD.start(lines)
    defer { server.stop() }
    return try await body(server)
}

package final class ScriptedGPSD: Sendable {
    package let process: ChildProcess
    package let port: Int
    private let directory: URL

    package var sourceArgument: String { "127.0.0.1:\(port)" }

    private init(process: ChildProcess, port: Int, directory: URL) {
        self.process = process
        self.port = port
        self.directory = directory
    }

    package static func start(_ lines: [String]) async throws -> ScriptedGPSD {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("loctrack-scripted-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("replay.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let script = repositoryRoot.appendingPathComponent("scripts/fake_gpsd.py").path
        let process = try ChildProcess(
            executable: "/usr/bin/env", arguments: ["env", "python3", script, file.path],
            stdin: .null, stdout: .pipe, stderr: .pipe, newProcessGroup: true)
        do {
            try await process.waitForStdoutLines(1, timeout: .seconds(10))
        } catch {
            process.signal(SIGKILL)
            process.reap()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        guard let port = process.stdout?.lines.first.flatMap({ Int($0) }) else {
            process.signal(SIGKILL)
            process.reap()
            throw HarnessError("fake_gpsd.py printed no port: \(process.stdout?.text ?? "")")
        }
        return ScriptedGPSD(process: process, port: port, directory: directory)
    }

    /// SIGTERM, SIGKILL if it is still there 5 s later, and the files removed.
    package func stop() {
        process.stop(signal: SIGTERM, grace: .seconds(5))
        try? FileManager.default.removeItem(at: directory)
    }
}
