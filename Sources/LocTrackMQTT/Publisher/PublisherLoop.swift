import LocTrack
import Synchronization
import LocTrackSpool
import LocTrackSystem

/// The publisher's thread: a thin driver around ``PublisherStateMachine``. It feeds the
/// machine what the transport, the wake-up pipe, the spool and the monotonic clock say,
/// and performs the actions it gets back: spool reads and acknowledgements, transport
/// calls, status reports, and sleeping in `poll()` on the broker's socket and the
/// wake-up pipe.
///
/// Generic over the transport, so that the per-message ``MQTTTransport/publish(_:)`` is a
/// direct call: libmosquitto's ``MQTTConnection`` in the program, an in-memory broker in
/// the unit tests (which call ``performUntilSleep(now:)`` and ``serviceTransport(now:)``
/// themselves, with a clock of their own, instead of ``run()``).
struct PublisherLoop<Transport: MQTTTransport, Jitter: RandomNumberGenerator> {
    let core: PublisherCore
    let transport: Transport
    private(set) var machine: PublisherStateMachine<Jitter>
    /// The stop request was handed to the machine.
    private var stopSeen = false
    /// The wake-up pipe and the broker's socket, reused by every `poll()`.
    private var descriptors = PollSet(count: 2)

    init(core: PublisherCore, transport: Transport, jitter: Jitter) {
        self.core = core
        self.transport = transport
        machine = PublisherStateMachine(
            broker: core.configuration.broker, maximumInflight: core.configuration.maximumInflight,
            firstUnacknowledged: core.spool.firstUnacknowledged,
            greets: !core.configuration.greetings.isEmpty || !core.configuration.subscriptions.isEmpty, jitter: jitter)
    }

    /// Runs until the machine finishes: a stop, a refused login or a fatal error.
    mutating func run() {
        while let deadline = performUntilSleep(now: Monotonic.milliseconds) {
            waitForWork(until: deadline)
            serviceTransport(now: Monotonic.milliseconds)
        }
    }

    /// Tells the machine about a stop request and the spool's end, then performs its
    /// actions until it sleeps.
    /// - Returns: when to wake up at the latest, or nil once the machine has finished.
    mutating func performUntilSleep(now: Int64) -> Int64? {
        if !stopSeen, let drain = core.shared.withLock({ $0.stopRequested ? $0.drain : nil }) {
            stopSeen = true
            machine.stopRequested(deadline: now + drain.milliseconds)
        }
        machine.appended(upTo: core.spool.nextSequence)
        while true {
            switch machine.nextAction(now: now) {
            case .connect:
                do throws(MQTTError) { try transport.connect() } catch { machine.connectFailed("\(error)", now: now) }
            case .reconnect:
                do throws(MQTTError) { try transport.reconnect() } catch { machine.connectFailed("\(error)", now: now) }
            case .greet:
                greet(now: now)
            case .publish(let first, let limit):
                publish(from: first, limit: limit, now: now)
            case .acknowledge(let sequences):
                acknowledge(sequences)
            case .report(let status):
                core.channel.report(status)
            case .disconnect:
                transport.disconnect()
            case .sleep(let deadline):
                return deadline
            case .finish(let disconnecting):
                if disconnecting {
                    transport.disconnect()
                    transport.writePendingPackets()
                }
                try? core.spool.flushAcknowledgements(durably: true)
                return nil
            }
        }
    }

    /// Lets the transport read, write and keep the connection alive, then hands the
    /// machine what that brought.
    mutating func serviceTransport(now: Int64) {
        var failure: MQTTError?
        do throws(MQTTError) { try transport.exchangePackets() } catch { failure = error }
        let events = transport.takeEvents()
        for message in events.messages { core.hooks.onMessage(message) }
        machine.received(
            events, failure: failure.map { "\($0)" }, explains: failure?.isTLSFailure ?? false, now: now,
            describingConnack: Transport.connackText)
    }

    /// Subscribes and sends the greetings on a connection just accepted. Their
    /// acknowledgements carry ids the machine does not know, which it ignores.
    private mutating func greet(now: Int64) {
        let configuration = core.configuration
        do throws(MQTTError) {
            for topic in configuration.subscriptions { try transport.subscribe(topic) }
            for greeting in configuration.greetings {
                _ = try transport.publish(SpoolMessage(
                    topic: greeting.topic, payload: greeting.payload, qos: UInt8(configuration.qos), retain: greeting.retain))
            }
        } catch {
            machine.sendFailed("\(error)", now: now)
        }
    }

    private mutating func publish(from first: UInt64, limit: Int, now: Int64) {
        let batch: [(sequence: UInt64, message: SpoolMessage)]
        do {
            batch = try core.spool.messages(from: first, limit: limit)
        } catch {
            machine.spoolFailed(error)
            return
        }
        // Not expected (the spool keeps its newest message), but an empty batch must not
        // make the machine ask again at once: it learns the spool's end at the next wake-up.
        if batch.isEmpty { machine.appended(upTo: first) }
        for (sequence, message) in batch {
            do throws(MQTTError) {
                let messageID = try transport.publish(message)
                machine.handedOver(sequence, messageID: messageID, qos: message.qos)
            } catch {
                machine.sendFailed("\(error)", now: now)
                return
            }
        }
    }

    private mutating func acknowledge(_ sequences: [UInt64]) {
        core.spool.acknowledge(sequences)
        do {
            // Written at once (a SIGKILL cannot undo it), synced about once a second.
            try core.spool.flushAcknowledgements(durably: false)
        } catch {
            machine.spoolFailed(error)
        }
    }

    /// Sleeps in `poll()` until the broker's socket or the wake-up pipe has something,
    /// or `deadline`.
    private mutating func waitForWork(until deadline: Int64) {
        let timeout = Int32(clamping: max(0, deadline - Monotonic.milliseconds))
        let socket = transport.socket
        descriptors.set(0, descriptor: core.channel.wakeUps.readDescriptor, events: .readable)
        descriptors.set(1, descriptor: socket, events: transport.wantsWrite ? [.readable, .writable] : .readable)
        // A failed poll (ENOMEM) is a short sleep: the loop decides again by the deadline.
        _ = try? descriptors.wait(entries: socket >= 0 ? 2 : 1, milliseconds: timeout)
        if !descriptors.returned(0).isEmpty { core.channel.wakeUps.drain() }
    }
}

extension PublisherLoop where Transport == MQTTConnection, Jitter == SystemRandomNumberGenerator {
    /// The thread's body: a libmosquitto client set up from the configuration, and the
    /// loop over it until the publisher stops.
    static func runWithLibmosquitto(_ core: PublisherCore) {
        let connection: MQTTConnection
        do throws(MQTTError) {
            connection = try MQTTConnection(core.configuration)
        } catch {
            core.channel.report(.failed(reason: "\(error)"))
            return
        }
        var loop = PublisherLoop(core: core, transport: connection, jitter: SystemRandomNumberGenerator())
        loop.run()
    }
}
