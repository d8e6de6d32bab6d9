import Foundation
import Glibc

/// What gpsd did, read from its log (`-D 3`) and from /proc.
extension GPSFake {
    /// gpsd's log so far (its stderr at `-D 3`), one entry per message, in gpsd 3.22's form
    /// whatever gpsd wrote it (``messages(in:)``).
    package var gpsdLog: [String] {
        Self.messages(in: Self.logText(process, logFile))
    }

    /// gpsd's log text as one entry per message, each in gpsd 3.22's one-line form.
    ///
    /// gpsd 3.22 escapes what it logs of the traffic with its clients, so a message is one line:
    /// `gpsd:CLIENT: => client(0): {…}\x0d\x0a{…}\x0d\x0a`, `<= client(0): ?WATCH=…;\x0a`.
    /// gpsd 3.25 writes the bytes as they are, and the length: `=> client(0) len 314: {…}\r`,
    /// each further report of that write on a line of its own, then an empty line. So here a
    /// line that does not start with `gpsd:` continues a client message before it; the parts are
    /// joined with the escaped `\x0d\x0a` 3.22 writes, and ` len N` is dropped. Other lines
    /// (gpsfake's own) stay entries of their own; empty lines are dropped.
    package static func messages(in text: String) -> [String] {
        var messages: [String] = []
        var continues = false
        // By newline Characters: Swift reads 3.25's "\r\n" as one Character, not as "\r" and "\n".
        for part in text.split(whereSeparator: \.isNewline) {
            let line = String(part)
            if continues, !line.hasPrefix("gpsd:") {
                messages[messages.count - 1] += "\\x0d\\x0a" + line
                continue
            }
            var message = line
            if let arrow = message.range(of: "> client("), let close = message[arrow.upperBound...].firstIndex(of: ")") {
                continues = true
                // 3.25: `=> client(0) len 84: {…}` is 3.22's `=> client(0): {…}`.
                if message[close...].hasPrefix(") len "), let colon = message[close...].firstIndex(of: ":") {
                    message.removeSubrange(message.index(after: close)..<colon)
                }
            } else {
                continues = false
            }
            messages.append(message)
        }
        return messages
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
        Self.reports(in: gpsdLog, class: reportClass)
    }

    /// Every report sent to any client in `log` (``gpsdLog``): `(client, JSON object)` in order.
    package static func reports(in log: [String], class reportClass: String? = nil) -> [(client: Int, report: [String: Any])] {
        log.flatMap { line -> [(client: Int, report: [String: Any])] in
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
