import Foundation
import Glibc

/// One test's `loctrack … --publish` runs: a private folder for the spool and other
/// files, a unique client id, and the arguments every run gets (`--client-id`,
/// `--spool`), so that parallel tests never share a spool or a broker session.
/// The same `PublishRun` started twice is the same publisher restarted.
final class PublishRun: Sendable {
    let home: StateHome
    let clientID: String
    let spool: String

    init(_ name: String) throws {
        home = try StateHome()
        clientID = "loctrack-\(name)-\(UUID().uuidString.prefix(8))"
        spool = "\(home.path)/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
    }

    /// `stream --publish URL --client-id ID --spool DIR OPTIONS… SOURCE`.
    func streamArguments(_ url: String, _ options: [String] = [], source: String) -> [String] {
        ["stream", "--publish", url, "--client-id", clientID, "--spool", spool] + options + [source]
    }

    /// Starts `loctrack stream --publish …` (see ``streamArguments(_:_:source:)``).
    func startStream(_ url: String, _ options: [String] = [], source: String, environment: [String: String] = [:]) throws -> ChildProcess {
        try LoctrackProcess.start(streamArguments(url, options, source: source), environment: environment)
    }

    /// The files in the spool folder, recursively (what a crash leaves behind).
    var spoolFiles: [String] {
        (FileManager.default.enumerator(atPath: spool)?.allObjects as? [String] ?? []).filter { file in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(spool)/\(file)", isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }
}

/// A unique MQTT client id for a test's subscriber.
func subscriberID(_ name: String) -> String { "sub-\(name)-\(UUID().uuidString.prefix(8))" }

/// Waits until `process` watches gpsd (and gpsd has opened the devices) and then feeds
/// the whole log, or until `process` ended first (e.g. it gave up on the broker before
/// it asked gpsd for anything): returns whether it fed.
@discardableResult
func feedAllOnceWatched(_ fake: GPSFake, by process: ChildProcess, timeout: Duration = .seconds(20)) async throws -> Bool {
    try await waitUntil(timeout: timeout, "loctrack to watch gpsd or end; gpsd log:\n\(fake.logTail)") {
        if process.pollTermination() != nil { return true }
        let log = fake.gpsdLog
        return !GPSFake.watchingClients(in: log).isEmpty && Set(fake.devices).isSubset(of: GPSFake.activatedDevices(in: log))
    }
    guard process.pollTermination() == nil else { return false }
    fake.feedAll()
    return true
}

extension ChildProcess {
    /// Sends SIGINT and returns what the plain `stream` printed (it exits 0).
    func interruptedLines() async throws -> [String] {
        signal(SIGINT)
        let result = try await result(timeLimit: .seconds(10))
        guard result.status == .exited(0) else { throw HarnessError("the plain stream did not exit 0 on SIGINT: \(result)") }
        return result.stdoutLines
    }
}

extension Array where Element: Hashable {
    /// The elements in the order of their first occurrence.
    var firstOccurrences: [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

/// Waits until each of `processes` watches gpsd and gpsd has opened the devices, like
/// ``GPSFake/waitForWatchers(_:devices:timeout:)``, but fails at once, with its
/// stderr, when one of them ends first (a refused option, a refused login).
func waitForWatchers(_ fake: GPSFake, _ processes: ChildProcess..., timeout: Duration = .seconds(20)) async throws {
    try await waitUntil(timeout: timeout, "\(processes.count) watcher(s); gpsd log:\n\(fake.logTail)") {
        for process in processes {
            if let ended = process.pollTermination() {
                throw HarnessError("loctrack ended (\(ended)) before watching gpsd; stderr:\n\(process.stderr?.text ?? "")")
            }
        }
        let log = fake.gpsdLog
        return GPSFake.watchingClients(in: log).count >= processes.count && Set(fake.devices).isSubset(of: GPSFake.activatedDevices(in: log))
    }
}

extension PublishRun {
    /// Starts `stream --publish URL OPTIONS…` and, beside it, a plain `stream --format
    /// PLAINFORMAT` on the same gpsd (whose lines are what the messages must be), and waits
    /// until gpsd has both watching.
    func startBesidePlainStream(
        _ url: String, _ options: [String] = [], plainFormat: String = "json", fake: GPSFake,
        environment: [String: String] = [:]
    ) async throws -> (publisher: ChildProcess, plain: ChildProcess) {
        let publisher = try startStream(url, options, source: fake.sourceArgument, environment: environment)
        let plain = try LoctrackProcess.start(["stream", "--format", plainFormat, fake.sourceArgument])
        try await waitForWatchers(fake, publisher, plain)
        return (publisher, plain)
    }

    /// Publishes `fake`'s whole log beside a plain stream (``startBesidePlainStream``):
    /// once the plain stream printed `count` lines and `subscriber` has `count` messages
    /// (and `settle` more has passed, for anything extra to show), both are stopped, the
    /// publisher with SIGINT.
    /// - Returns: the publisher's result and the plain stream's lines.
    func publishWholeLog(
        _ url: String, _ options: [String] = [], plainFormat: String = "json", fake: GPSFake,
        subscriber: Subscriber, count: Int, settle: Duration = .zero
    ) async throws -> (result: LoctrackResult, expected: [String]) {
        let (publisher, plain) = try await startBesidePlainStream(url, options, plainFormat: plainFormat, fake: fake)
        fake.feedAll()
        try await plain.waitForStdoutLines(count)
        try await subscriber.waitForMessages(count: count)
        if settle > .zero { try await Task.sleep(for: settle) }
        let expected = try await plain.interruptedLines()
        publisher.signal(SIGINT)
        return (try await publisher.result(), expected)
    }
}

extension GPSFake {
    /// Waits until gpsd has had `number` watch requests in all, failing at once with its
    /// stderr when `process` ends first. For a client restarted again and again: gpsd
    /// reuses a closed client's number, so requests are counted, not clients.
    func waitForWatchRequests(_ number: Int, by process: ChildProcess, timeout: Duration = .seconds(20)) async throws {
        try await waitUntil(timeout: timeout, "watch request \(number); gpsd log:\n\(logTail)") {
            if let ended = process.pollTermination() {
                throw HarnessError("loctrack ended (\(ended)) before watching gpsd; stderr:\n\(process.stderr?.text ?? "")")
            }
            return gpsdLog.filter { $0.contains("<= client(") && $0.contains("?WATCH=") && $0.contains("\"enable\":true") }.count >= number
        }
    }
}
