import Foundation
import Glibc

/// Waiting for gpsfake to add its devices and for gpsd to listen.
extension GPSFake {
    package static func waitForDevices(count: Int, process: ChildProcess, logFile: String?) async throws -> [String] {
        var devices: [String] = []
        try await waitUntil(timeout: .seconds(6), "gpsfake to add \(count) device(s); \(diagnostics(process)); stderr:\n\(logText(process, logFile))") {
            if let ended = process.pollTermination() {
                throw HarnessError("gpsfake ended (\(ended)) while starting; stderr:\n\(logText(process, logFile))")
            }
            // gpsd: "gpsd:CLIENT: <= control(6): +/dev/pts/9\x0d\x0a"
            devices = logText(process, logFile).split(separator: "\n").compactMap { line in
                guard line.contains("<= control("), let plus = line.range(of: ": +/") else { return nil }
                let path = line[line.index(before: plus.upperBound)...]
                return String(path.prefix { $0 != "\\" && !$0.isWhitespace })
            }
            return devices.count >= count
        }
        return Array(devices.prefix(count))
    }

    /// The processes of gpsfake's group and where they wait, for failure messages.
    package static func diagnostics(_ process: ChildProcess) -> String {
        let members = ProcessGroup.members(process.pid).map { member in
            let channel = (try? String(contentsOfFile: "/proc/\(member.pid)/wchan", encoding: .utf8)) ?? "?"
            return "\(member.pid) \(member.command) \(member.state) wchan=\(channel)"
        }
        return "process group \(process.pid): [\(members.joined(separator: "; "))], stderr pipe ended: \(process.stderr?.ended ?? true)"
    }

    package static func waitForListener(port: Int, process: ChildProcess) async throws {
        try await waitUntil(timeout: .seconds(20), "gpsd to listen on \(port); \(diagnostics(process))") {
            if let ended = process.pollTermination() { throw HarnessError("gpsfake ended (\(ended))") }
            return Loopback.canConnect(port: port)
        }
    }
}
