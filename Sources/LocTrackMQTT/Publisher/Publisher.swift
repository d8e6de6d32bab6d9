import LocTrack
import Synchronization
import LocTrackSpool
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
/// over an ``MQTTTransport``. It is the publisher's: ``finish(drainingFor:)`` returns once
/// it has ended and been joined, and a publisher released without `finish` stops it and
/// joins it in its `deinit`.
public final class Publisher: Sendable {
    /// What the thread runs on: everything but the ``Publisher`` itself, so that a
    /// publisher nobody holds any more is deinitialised, and its deinit stops the thread.
    let core: PublisherCore
    private let thread = ThreadOwner()

    /// Opens the spool and starts the publisher's thread, which connects at once.
    /// - Parameter onStatus: called on the publisher's thread for every change worth
    ///   reporting (see ``PublisherStatus``).
    /// - Parameter hooks: what the publisher's thread also calls (messages from the
    ///   subscriptions, each wake-up).
    public init(
        _ configuration: PublisherConfiguration, hooks: PublisherHooks = PublisherHooks(),
        onStatus: @escaping @Sendable (PublisherStatus) -> Void
    ) throws(PublishError) {
        core = try PublisherCore(configuration, hooks: hooks, onStatus: onStatus)
        let core = self.core
        do throws(Errno) {
            try thread.start(named: "loctrack-mqtt") {
                PublisherLoop.runWithLibmosquitto(core)
                core.end.markEnded()
            }
        } catch {
            throw .thread(error.code)
        }
    }

    /// A publisher dropped without ``finish(drainingFor:)`` stops its thread at once; what
    /// the broker has not acknowledged stays in the spool. The thread is joined as the
    /// handle goes, after this (by ``ThreadReaper`` when this runs on the thread itself:
    /// a status callback that held the last reference).
    deinit {
        core.requestStop(drainingFor: .zero)
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
        let configuration = core.configuration
        let result: SpoolAppendResult
        do {
            result = try core.spool.append(messages)
        } catch {
            throw .spool(error.description)
        }
        core.wakeUps.wake()
        if result.droppedOldest > 0 {
            core.onStatus(.droppedOldest(count: result.droppedOldest, limitBytes: configuration.spoolLimitBytes))
        }
        return result.droppedOldest
    }

    /// Messages in the spool not yet acknowledged by the broker.
    public var pendingCount: Int { core.spool.pendingCount }

    /// Stops the thread: it first waits up to `drain` for the broker to acknowledge what
    /// is spooled (while connected), then disconnects. What is not acknowledged stays in
    /// the spool for the next start.
    public func finish(drainingFor drain: Duration = .seconds(2)) async {
        if !core.requestStop(drainingFor: drain) { await core.end.wait() }
        // Its last act done, the thread is returning: the join waits for no more than that.
        thread.join()
    }
}

/// The publisher's state shared by the program and the thread.
final class PublisherCore: Sendable {
    struct Shared {
        var stopRequested = false
        /// How long a stopping thread waits for acknowledgements, from when it sees the request.
        var drain: Duration = .zero
    }

    let configuration: PublisherConfiguration
    let spool: Spool
    let wakeUps: WakeUpPipe
    let shared = Mutex(Shared())
    /// The thread's end, which ``Publisher/finish(drainingFor:)`` awaits before joining it.
    let end = ThreadEnd()
    let onStatus: @Sendable (PublisherStatus) -> Void
    let hooks: PublisherHooks

    init(
        _ configuration: PublisherConfiguration, hooks: PublisherHooks = PublisherHooks(),
        onStatus: @escaping @Sendable (PublisherStatus) -> Void
    ) throws(PublishError) {
        self.configuration = configuration
        self.hooks = hooks
        self.onStatus = onStatus
        do {
            spool = try Spool(directory: configuration.spoolDirectory, limitBytes: configuration.spoolLimitBytes)
        } catch {
            throw .spool(error.description)
        }
        do {
            wakeUps = try WakeUpPipe()
        } catch {
            throw .thread(error.code)
        }
    }

    /// Asks the thread to stop (the first request sets the deadline) and wakes it.
    /// - Returns: whether the thread has already ended.
    @discardableResult
    func requestStop(drainingFor drain: Duration) -> Bool {
        shared.withLock { shared in
            if !shared.stopRequested {
                shared.stopRequested = true
                shared.drain = drain
            }
        }
        wakeUps.wake()
        return end.hasEnded
    }
}

/// Why a ``Publisher`` could not start or take a message.
public enum PublishError: Error, Sendable, CustomStringConvertible {
    /// The spool failed (its folder cannot be made, a full disk, a corrupt spool, another
    /// process using it): the one line that says which file and why.
    case spool(String)
    case thread(Int32)

    public var description: String {
        switch self {
        case .spool(let reason): reason
        case .thread(let code): "cannot start the publisher's thread: \(Errno(code: code))"
        }
    }
}
