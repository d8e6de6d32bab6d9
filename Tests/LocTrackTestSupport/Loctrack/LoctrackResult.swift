import Foundation

/// What a finished loctrack did.
package struct LoctrackResult: Sendable, CustomStringConvertible {
    package let status: Termination
    package let stdout: String
    package let stderr: String
    package let duration: Duration

    /// Complete stdout lines (each ended by `\n`).
    package var stdoutLines: [String] { stdout.completeLines }
    /// stderr lines (blank ones too), the last one even without `\n`.
    package var stderrLines: [String] {
        var lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Every stdout line parsed as a JSON object; throws, naming the line, if one is not.
    package func jsonObjects() throws -> [[String: Any]] {
        try stdoutLines.map { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw HarnessError("stdout line is not a JSON object: \(line)")
            }
            return object
        }
    }

    package var description: String {
        "loctrack \(status) after \(duration)\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)"
    }
}
