import Foundation
import Glibc

/// One test's `loctrack … --publish` runs: a private folder for the spool and other
/// files, a unique client id, and the arguments every run gets (`--client-id`,
/// `--spool`), so that parallel tests never share a spool or a broker session.
/// The same `PublishRun` started twice is the same publisher restarted.
package final class PublishRun: Sendable {
    package let home: StateHome
    package let clientID: String
    package let spool: String

    package init(_ name: String) throws {
        home = try StateHome()
        clientID = "loctrack-\(name)-\(UUID().uuidString.prefix(8))"
        spool = "\(home.path)/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
    }

    /// `stream --publish URL --client-id ID --spool DIR OPTIONS… SOURCE`.
    package func streamArguments(_ url: String, _ options: [String] = [], source: String) -> [String] {
        ["stream", "--publish", url, "--client-id", clientID, "--spool", spool] + options + [source]
    }

    /// Starts `loctrack stream --publish …` (see ``streamArguments(_:_:source:)``).
    package func startStream(_ url: String, _ options: [String] = [], source: String, environment: [String: String] = [:]) throws -> ChildProcess {
        try LoctrackProcess.start(streamArguments(url, options, source: source), environment: environment)
    }

    /// Starts `monitor run --publish URL --client-id ID --spool DIR OPTIONS… SOURCE` with this run's state home.
    package func startMonitor(_ url: String, _ options: [String] = [], source: String) throws -> ChildProcess {
        try home.start(["monitor", "run", "--publish", url, "--client-id", clientID, "--spool", spool] + options + [source])
    }

    /// The files in the spool folder, recursively (what a crash leaves behind).
    package var spoolFiles: [String] {
        (FileManager.default.enumerator(atPath: spool)?.allObjects as? [String] ?? []).filter { file in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(spool)/\(file)", isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }
}

extension PublishRun {
    /// Starts `stream --publish URL OPTIONS…` and, beside it, a plain `stream --format
    /// PLAINFORMAT PLAINOPTIONS…` on the same gpsd (whose lines are what the messages must
    /// be), and waits until gpsd has both watching.
    package func startBesidePlainStream(
        _ url: String, _ options: [String] = [], plainFormat: String = "json", plainOptions: [String] = [], fake: GPSFake,
        environment: [String: String] = [:]
    ) async throws -> (publisher: ChildProcess, plain: ChildProcess) {
        let publisher = try startStream(url, options, source: fake.sourceArgument, environment: environment)
        let plain = try LoctrackProcess.start(["stream", "--format", plainFormat] + plainOptions + [fake.sourceArgument])
        try await fake.waitForWatchers([publisher, plain])
        return (publisher, plain)
    }

    /// Publishes `fake`'s whole log beside a plain stream (``startBesidePlainStream``):
    /// once the plain stream printed `count` lines and `subscriber` has `count` messages
    /// (and `settle` more has passed, for anything extra to show), both are stopped, the
    /// publisher with SIGINT.
    /// - Returns: the publisher's result and the plain stream's lines.
    package func publishWholeLog(
        _ url: String, _ options: [String] = [], plainFormat: String = "json", plainOptions: [String] = [], fake: GPSFake,
        subscriber: Subscriber, count: Int, settle: Duration = .zero
    ) async throws -> (result: LoctrackResult, expected: [String]) {
        let (publisher, plain) = try await startBesidePlainStream(
            url, options, plainFormat: plainFormat, plainOptions: plainOptions, fake: fake)
        fake.feedAll()
        try await plain.waitForStdoutLines(count)
        try await subscriber.waitForMessages(count: count)
        return try await stopPublishing(publisher, beside: plain, settle: settle)
    }
}
