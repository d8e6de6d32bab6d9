import LocTrack
import Synchronization
public import LocTrackSpool
import LocTrackSystem

/// Publishes messages to an MQTT broker with nothing lost: store and forward.
///
/// ``publish(_:to:)`` appends messages to the on-disk ``Spool`` (durably, before it
/// returns) and wakes the publisher's thread, `loctrack-mqtt`. That thread owns the
/// libmosquitto client: it connects (and reconnects with capped backoff), sends spooled
/// messages in order with up to ``PublisherConfiguration/maximumInflight`` awaiting
/// acknowledgement, and removes each from the spool only once the broker acknowledged it.
/// A broker that is down, a dropped network or a crash of this process therefore loses
/// nothing: the spool is sent first on reconnect and on the next start.
///
/// The thread is ``PublisherLoop``, which performs what ``PublisherStateMachine`` decides,
/// over an ``MQTTTransport``; the spool, the wake-up, the thread and the drain at the end
/// are LocTrackSpool's store-and-forward shell (``SpoolUplinkThread``, ``UplinkChannel``).
/// The thread is the publisher's: ``finish(drainingFor:)`` returns once it has ended and
/// been joined, and a publisher released without `finish` stops it and joins it.
public final class Publisher: Sendable {
    /// The thread, and what it runs on: everything but the ``Publisher`` itself.
    private let thread: SpoolUplinkThread<PublisherCore>
    var core: PublisherCore { thread.core }

    /// Opens the spool and starts the publisher's thread, which connects at once.
    /// - Parameter onStatus: called on the publisher's thread for every change worth
    ///   reporting (see ``PublisherStatus``).
    /// - Parameter hooks: what the publisher's thread also calls (messages from the
    ///   subscriptions, each wake-up).
    public init(
        _ configuration: PublisherConfiguration, hooks: PublisherHooks = PublisherHooks(),
        onStatus: @escaping @Sendable (PublisherStatus) -> Void
    ) throws(PublishError) {
        let core = try PublisherCore(configuration, hooks: hooks, onStatus: onStatus)
        do throws(Errno) {
            thread = try SpoolUplinkThread(named: "loctrack-mqtt", core: core) { core in
                PublisherLoop.runWithLibmosquitto(core)
            }
        } catch {
            throw .thread(error.code)
        }
    }

    /// Spools `payloads` as messages on `topic` (in order, durably) and wakes the thread.
    /// - Returns: how many of the spool's oldest messages were dropped to stay within its limit.
    @discardableResult
    public func publish(_ payloads: [[UInt8]], to topic: String) throws(PublishError) -> Int {
        guard !payloads.isEmpty else { return 0 }
        let configuration = core.configuration
        return try spool(payloads.map {
            SpoolMessage(topic: topic, payload: $0, qos: UInt8(configuration.qos), retain: configuration.retain)
        })
    }

    /// Spools messages on topics of their own, each retained or not as it says, at the
    /// configuration's QoS (in order, durably), and wakes the thread.
    /// - Returns: how many of the spool's oldest messages were dropped to stay within its limit.
    @discardableResult
    public func publish(_ messages: [(topic: String, payload: [UInt8], retain: Bool)]) throws(PublishError) -> Int {
        guard !messages.isEmpty else { return 0 }
        let qos = UInt8(core.configuration.qos)
        return try spool(messages.map { SpoolMessage(topic: $0.topic, payload: $0.payload, qos: qos, retain: $0.retain) })
    }

    private func spool(_ messages: [SpoolMessage]) throws(PublishError) -> Int {
        do {
            return try core.channel.append(messages)
        } catch {
            throw .spool(error)
        }
    }

    /// Messages in the spool not yet acknowledged by the broker.
    public var pendingCount: Int { core.spool.pendingCount }

    /// Stops the thread: it first waits up to `drain` for the broker to acknowledge what
    /// is spooled (while connected), then disconnects. What is not acknowledged stays in
    /// the spool for the next start.
    public func finish(drainingFor drain: Duration = .seconds(2)) async {
        await thread.finish(drainingFor: drain)
    }
}

/// The publisher's state shared by the program and the thread.
final class PublisherCore: SpoolUplinkCore {
    struct Shared {
        var stopRequested = false
        /// How long a stopping thread waits for acknowledgements, from when it sees the request.
        var drain: Duration = .zero
    }

    let configuration: PublisherConfiguration
    let channel: UplinkChannel<PublisherStatus>
    let shared = Mutex(Shared())
    let hooks: PublisherHooks

    var spool: Spool { channel.spool }

    init(
        _ configuration: PublisherConfiguration, hooks: PublisherHooks = PublisherHooks(),
        onStatus: @escaping @Sendable (PublisherStatus) -> Void
    ) throws(PublishError) {
        self.configuration = configuration
        self.hooks = hooks
        do {
            channel = try UplinkChannel(
                spoolDirectory: configuration.spoolDirectory, limitBytes: configuration.spoolLimitBytes, onStatus: onStatus)
        } catch {
            switch error {
            case .spool(let error): throw .spool(error)
            case .wakeUpPipe(let error): throw .thread(error.code)
            }
        }
    }

    /// The first request sets the drain, which the thread counts from when it sees it.
    func recordStopRequest(drainingFor drain: Duration) {
        shared.withLock { shared in
            if !shared.stopRequested {
                shared.stopRequested = true
                shared.drain = drain
            }
        }
    }
}

/// Why a ``Publisher`` could not start or take a message.
public enum PublishError: Error, Sendable, CustomStringConvertible {
    /// The spool failed (its folder cannot be made, a full disk, a corrupt spool, another
    /// process using it): its error says which file and why.
    case spool(SpoolError)
    case thread(Int32)

    public var description: String {
        switch self {
        case .spool(let error): error.description
        case .thread(let code): "cannot start the publisher's thread: \(Errno(code: code))"
        }
    }
}

extension PublisherStatus: SpoolUplinkStatus {}
