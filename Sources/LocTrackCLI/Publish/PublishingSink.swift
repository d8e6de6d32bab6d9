import LocTrack
import LocTrackMQTT
import Synchronization
import LocTrackSystem

/// `--publish`: each line a streaming command would print becomes one MQTT message on
/// one topic, through the spool and the ``Publisher``; nothing goes to stdout.
final class PublishingSink: LineSink {
    let publisher: Publisher
    private let topic: String
    private let spoolDirectory: String
    /// The first fatal status (login refused, spool failed): the command ends with it.
    /// In a box of its own, which the publisher's status callback holds too.
    private let fatal = FatalStatus()
    /// Lines appended to the spool (synced before `publish` returns).
    private let spooledLines = Atomic(0)

    /// Opens the spool and starts publishing.
    /// - Parameters:
    ///   - will: the OwnTracks last will, for `--format owntracks`.
    ///   - onFatal: called once when publishing cannot go on (the command then finishes).
    ///   - adjust: changes to the publisher's configuration (Home Assistant's greetings).
    ///   - hooks: what the publisher's thread also calls.
    init(
        options: PublishOptions, topic: String, will: PublisherConfiguration.Will?, verbose: Bool,
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
        self.topic = topic
        spoolDirectory = configuration.spoolDirectory
        let reporter = PublisherStatusReporter(verbose: verbose)
        let fatal = self.fatal
        do {
            publisher = try Publisher(configuration, hooks: hooks) { status in
                if status.isFatal {
                    let first = fatal.status.withLock { current in
                        defer { if current == nil { current = status } }
                        return current == nil
                    }
                    if first { onFatal() }
                } else {
                    reporter.report(status)
                }
            }
        } catch {
            throw .publisher(error)
        }
    }

    func send(_ output: OutputBytes, lines: Int) async -> Bool {
        guard fatal.status.withLock({ $0 == nil }) else { return false }
        let payloads = Self.lines(of: output.bytes, expected: lines)
        do {
            try publisher.publish(payloads, to: topic)
            spooledLines.add(lines, ordering: .relaxed)
            return true
        } catch {
            fatal.status.withLock { $0 = $0 ?? .failed(reason: "\(error)") }
            return false
        }
    }

    /// Spools messages on topics of their own (Home Assistant's).
    /// - Returns: false once publishing cannot go on.
    func send(_ messages: [HomeAssistantMessage]) -> Bool {
        guard !messages.isEmpty else { return true }
        guard fatal.status.withLock({ $0 == nil }) else { return false }
        do {
            try publisher.publish(messages.map { (topic: $0.topic, payload: $0.payload, retain: true) })
            return true
        } catch {
            fatal.status.withLock { $0 = $0 ?? .failed(reason: "\(error)") }
            return false
        }
    }

    /// One payload per line, without its newline; empty lines make no message. `memchr`
    /// finds each newline: on a flood this runs once per fix, and the generic `split`
    /// cost more than the spool's own work per message.
    static func lines(of bytes: [UInt8], expected: Int) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(expected)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                var end = buffer.count
                if let newline = findByte(base + start, 0x0A, buffer.count - start) {
                    end = UnsafePointer(newline.assumingMemoryBound(to: UInt8.self)) - base
                }
                if end > start { payloads.append(Array(UnsafeBufferPointer(rebasing: buffer[start..<end]))) }
                start = end + 1
            }
        }
        return payloads
    }

    /// A document's framing has no place in messages (and `--publish` takes line formats only).
    func sendFraming(_ text: String) {}

    var settledLines: Int { spooledLines.load(ordering: .relaxed) }

    /// How long the end of a command waits for the broker to acknowledge what is spooled:
    /// briefly after a signal (the user wants out), long enough for a backlog otherwise
    /// (`--count`, `--duration`, gpsd gone with `--no-reconnect`).
    static let promptDrain = Duration.seconds(2)
    static let fullDrain = Duration.seconds(60)

    func finish(promptly: Bool) async -> SinkOutcome {
        await publisher.finish(drainingFor: promptly ? Self.promptDrain : Self.fullDrain)
        let left = publisher.pendingCount
        if left > 0, fatal.status.withLock({ $0 == nil }) {
            printError("\(left) message\(left == 1 ? " is" : "s are") left in the spool \(spoolDirectory); loctrack sends \(left == 1 ? "it" : "them") first when it next starts with this --client-id")
        }
        switch fatal.status.withLock({ $0 }) {
        case .refused(let broker, let reason)?:
            return .failed(.unavailable, message: PublisherStatus.refused(broker, reason: reason).description)
        case .failed(let reason)?:
            return .failed(.outputFailed, message: "publishing failed: \(reason)")
        default:
            return .done
        }
    }
}

/// The first status that stopped the publisher.
private final class FatalStatus: Sendable {
    let status = Mutex<PublisherStatus?>(nil)
}

/// Why `--publish` could not start: exit 64 for its settings, 74 for the spool.
enum PublishingSetupError: Error, CustomStringConvertible {
    case configuration(PublishConfigurationError)
    case publisher(PublishError)

    var description: String {
        switch self {
        case .configuration(let error): "\(error)"
        case .publisher(let error): "\(error)"
        }
    }

    var exitCode: ExitCode {
        switch self {
        case .configuration: .usage
        case .publisher: .outputFailed
        }
    }
}

/// Says on stderr, once per outage, that the broker cannot be reached, and when it is back.
final class PublisherStatusReporter: Sendable {
    private let verbose: Bool
    private let outage = Mutex(false)

    init(verbose: Bool) {
        self.verbose = verbose
    }

    func report(_ status: PublisherStatus) {
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
        case .droppedOldest, .refused, .failed:
            printError(status.description)
        }
    }
}
