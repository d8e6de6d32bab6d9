import LocTrack
package import LocTrackMQTT
import Synchronization
import LocTrackSystem
import LocTrackFormats
package import LocTrackProcess

/// One `--publish` broker: its spool and publisher thread (``Publisher``), the first fatal
/// status (the command then ends with it), the outage reports on stderr, and the drain at
/// the end. What ``MQTTSink`` and ``HomeAssistantSink`` each publish through.
package final class BrokerConnection: Sendable {
    let publisher: Publisher
    private let spoolDirectory: String
    /// The first fatal status (login refused, spool failed). In a box of its own, which
    /// the publisher's status callback holds too.
    private let fatal = FirstFatalStatus<PublisherStatus>()

    /// Opens the spool and starts publishing.
    /// - Parameters:
    ///   - will: the OwnTracks last will, for `--format owntracks`.
    ///   - adjust: changes to the publisher's configuration (Home Assistant's greetings).
    ///   - hooks: what the publisher's thread also calls (it must only hand over, never act).
    ///   - onFatal: called once when publishing cannot go on (the command then finishes).
    package init(
        options: PublishOptions, will: PublisherConfiguration.Will?, verbose: Bool,
        environment: [String: String] = PublishOptions.processEnvironment,
        adjust: (inout PublisherConfiguration) -> Void = { _ in }, hooks: PublisherHooks = PublisherHooks(),
        onFatal: @escaping @Sendable () -> Void
    ) throws(PublishingSetupError) {
        var configuration: PublisherConfiguration
        do {
            configuration = PublisherConfiguration(
                broker: options.broker, password: try options.password(environment: environment),
                caFile: options.caFile, clientID: options.clientID, qos: options.qos, retain: options.retain,
                spoolDirectory: try options.spoolDirectory(environment: environment),
                spoolLimitBytes: options.spoolLimitBytes, will: will)
        } catch {
            throw .configuration(error)
        }
        adjust(&configuration)
        spoolDirectory = configuration.spoolDirectory
        let reporter = PublisherStatusReporter(verbose: verbose)
        let fatal = self.fatal
        do {
            publisher = try Publisher(configuration, hooks: hooks) { status in
                if status.isFatal {
                    if fatal.record(status) { onFatal() }
                } else {
                    reporter.report(status)
                }
            }
        } catch {
            throw .publisher(error)
        }
    }

    /// Spools `payloads` on `topic` (durably, in order).
    /// - Returns: false once publishing cannot go on.
    func publish(_ payloads: [[UInt8]], to topic: String) -> Bool {
        spool { () throws(PublishError) in try publisher.publish(payloads, to: topic) }
    }

    /// Spools messages on topics of their own, retained (Home Assistant's).
    /// - Returns: false once publishing cannot go on.
    func publish(_ messages: [HomeAssistantMessage]) -> Bool {
        spool { () throws(PublishError) in
            try publisher.publish(messages.map { (topic: $0.topic, payload: $0.payload, retain: true) })
        }
    }

    private func spool(_ append: () throws(PublishError) -> Int) -> Bool {
        guard fatal.first == nil else { return false }
        do {
            _ = try append()
            return true
        } catch {
            switch error {
            case .spool(let error): _ = fatal.record(.spoolFailed(error))
            case .thread: _ = fatal.record(.failed(reason: "\(error)"))  // not thrown by an append
            }
            return false
        }
    }

    /// Messages in the spool not yet acknowledged.
    var pendingCount: Int { publisher.pendingCount }

    /// How long the end of a command waits for the broker to acknowledge what is spooled:
    /// briefly after a signal (the user wants out), long enough for a backlog otherwise
    /// (`--count`, `--duration`, gpsd gone with `--no-reconnect`).
    static let promptDrain = Duration.seconds(2)
    static let fullDrain = Duration.seconds(60)

    /// Drains (as long as `promptly` allows), stops the publisher, and says how it ended.
    func finish(promptly: Bool) async -> SinkOutcome {
        await publisher.finish(drainingFor: promptly ? Self.promptDrain : Self.fullDrain)
        let left = publisher.pendingCount
        if left > 0, fatal.first == nil {
            printError("\(left) message\(left == 1 ? " is" : "s are") left in the spool \(spoolDirectory); loctrack sends \(left == 1 ? "it" : "them") first when it next starts with this --client-id")
        }
        switch fatal.first {
        case .refused(let broker, let reason)?:
            return .failed(.unavailable, message: PublisherStatus.refused(broker, reason: reason).description)
        case .spoolFailed(let error)?:
            return .failed(.outputFailed, message: "publishing failed: \(error)")
        case .failed(let reason)?:
            return .failed(.outputFailed, message: "publishing failed: \(reason)")
        default:
            return .done
        }
    }
}

/// The first status that stopped the publisher.
/// Why `--publish` could not start: exit 64 for its settings, 74 for the spool.
package enum PublishingSetupError: Error, CustomStringConvertible {
    case configuration(PublishConfigurationError)
    case publisher(PublishError)

    package var description: String {
        switch self {
        case .configuration(let error): "\(error)"
        case .publisher(let error): "\(error)"
        }
    }

    package var exitCode: ExitCode {
        switch self {
        case .configuration: .usage
        case .publisher: .outputFailed
        }
    }
}

/// Says on stderr, once per outage, that the broker cannot be reached, and when it is back.
package final class PublisherStatusReporter: Sendable {
    private let verbose: Bool
    private let outage = Mutex(false)

    package init(verbose: Bool) {
        self.verbose = verbose
    }

    package func report(_ status: PublisherStatus) {
        switch status {
        case .waiting:
            // The publisher reports an outage once; verbose or not, that line is useful.
            outage.withLock { $0 = true }
            printError(status.description)
        case .connected:
            let wasOut = outage.withLock { outage in
                defer { outage = false }
                return outage
            }
            if verbose || wasOut { printError(status.description) }
        case .droppedOldest, .refused, .spoolFailed, .failed:
            printError(status.description)
        }
    }
}
