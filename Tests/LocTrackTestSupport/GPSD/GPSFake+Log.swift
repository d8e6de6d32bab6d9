import Foundation
import Glibc

/// What gpsd did, read from its log (`-D 3`) and from /proc.
extension GPSFake {
    /// gpsd's log so far (its stderr at `-D 3`), one entry per line.
    package var gpsdLog: [String] {
        Self.logText(process, logFile).split(separator: "\n").map(String.init)
    }

    /// gpsd's stderr (with gpsfake's): from the pipe, or from the file with ``Options/logsToFile``.
    package static func logText(_ process: ChildProcess, _ logFile: String?) -> String {
        guard let logFile else { return process.stderr?.text ?? "" }
        return (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
    }

    /// The clients gpsd holds: its sockets on its port other than the listening ones,
    /// whether the client is still there (ESTABLISHED) or gone and gpsd has not yet
    /// closed its end (CLOSE_WAIT). What gpsd runs out of is these.
    package var gpsdClients: Int {
        ProcessResources.tcpConnections(of: String(gpsdPID), port: port, side: .local, states: ["01", "08"])
    }

    /// The last 40 lines of gpsd's log, for failure messages.
    package var logTail: String { gpsdLog.suffix(40).joined(separator: "\n") }

    /// Every report gpsd sent to any client: `(client, JSON object)` in order.
    package func reportsSent(class reportClass: String? = nil) -> [(client: Int, report: [String: Any])] {
        gpsdLog.flatMap { line -> [(client: Int, report: [String: Any])] in
            // gpsd:CLIENT: => client(0): {…}\x0d\x0a{…}\x0d\x0a   (one write may hold several reports)
            guard let arrow = line.range(of: "=> client("),
                  let close = line[arrow.upperBound...].firstIndex(of: ")"),
                  let client = Int(line[arrow.upperBound..<close]),
                  let brace = line[close...].firstIndex(of: "{")
            else { return [] }
            return line[brace...].components(separatedBy: "\\x0d\\x0a").compactMap { json in
                guard !json.isEmpty,
                      let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
                      reportClass == nil || object["class"] as? String == reportClass
                else { return nil }
                return (client, object)
            }
        }
    }

    /// Commands gpsd received from clients, e.g. `?WATCH={"enable":true,"json":true};`.
    package var commandsReceived: [String] {
        gpsdLog.compactMap { line in
            guard line.contains("<= client("), let colon = line.range(of: "): ") else { return nil }
            var command = line[colon.upperBound...]
            if command.hasSuffix("\\x0a") { command = command.dropLast(4) }
            return String(command)
        }
    }

    /// Waits until gpsd has sent a report for which `condition` holds.
    package func waitForReport(timeout: Duration = .seconds(15), _ what: String, where condition: ([String: Any]) -> Bool) async throws {
        try await waitUntil(timeout: timeout, "gpsd to send \(what); gpsd log:\n\(logTail)") {
            reportsSent().contains { condition($0.report) }
        }
    }

    package func checkAlive() throws {
        if let ended = process.pollTermination() {
            throw HarnessError("gpsfake ended (\(ended)); its stderr:\n\(logTail)")
        }
    }
}
