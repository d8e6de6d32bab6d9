import Glibc
import LocTrack
import Synchronization

/// The publisher's thread: one `poll()` loop over the broker's socket and the wake-up
/// pipe, which connects, sends the spool in order and retires what the broker acknowledged.
struct PublisherLoop {
    let publisher: PublisherCore
    private var connection: MQTTConnection?
    private var connected = false
    /// A connection was opened (so the next attempt is a reconnect of the same session).
    private var opened = false
    private var backoff: Backoff
    private var nextAttempt: Int64 = 0
    /// An outage was reported; ``PublisherStatus/connected(_:)`` says when it ends.
    private var outageReported = false
    /// The next spooled message to hand to libmosquitto.
    private var nextToSend: UInt64
    /// Message id → spool sequence, for messages awaiting the broker's acknowledgement.
    private var inflight: [Int32: UInt64] = [:]
    private var stopped = false

    private var configuration: PublisherConfiguration { publisher.configuration }

    init(core publisher: PublisherCore) {
        self.publisher = publisher
        nextToSend = publisher.spool.firstUnacknowledged
        // Retried as gpsd is: 0.5 s doubling to 30 s, jittered.
        backoff = Backoff(.automatic)
    }

    mutating func run() {
        do throws(MQTTError) {
            connection = try makeConnection()
        } catch {
            publisher.onStatus(.failed(reason: "\(error)"))
            return
        }
        while !stopped {
            let (stopping, deadline) = publisher.shared.withLock { ($0.stopRequested, $0.stopDeadline) }
            let now = Monotonic.milliseconds
            if stopping, !connected || now >= deadline || (publisher.spool.pendingCount == 0 && inflight.isEmpty) { break }
            if !connected, connection?.socket ?? -1 < 0, now >= nextAttempt, !stopping { attemptConnection() }
            if connected { sendSpooled() }
            waitForWork(stopping: stopping, now: now)
            step()
        }
        if connected {
            connection?.disconnect()
            try? connection?.writePackets()
        }
        connection = nil
        try? publisher.spool.flushAcknowledgements(durably: true)
    }

    private func makeConnection() throws(MQTTError) -> MQTTConnection {
        let connection = try MQTTConnection(clientID: configuration.clientID)
        try connection.setCredentials(user: configuration.broker.user, password: configuration.password)
        if configuration.broker.usesTLS { try connection.enableTLS(caFile: configuration.caFile) }
        if let will = configuration.will {
            try connection.setWill(topic: will.topic, payload: will.payload, qos: Int32(configuration.qos), retain: false)
        }
        try connection.setMaximumInflight(configuration.maximumInflight)
        return connection
    }

    private mutating func attemptConnection() {
        guard let connection else { return }
        do throws(MQTTError) {
            if opened {
                try connection.reconnect()
            } else {
                try connection.connect(
                    host: configuration.broker.host, port: configuration.broker.port,
                    keepAliveSeconds: configuration.keepAliveSeconds)
                opened = true
            }
        } catch {
            retryLater(because: "\(error)")
        }
    }

    /// Hands spooled messages to libmosquitto until the in-flight window is full.
    private mutating func sendSpooled() {
        guard let connection else { return }
        while inflight.count < configuration.maximumInflight {
            let batch: [(sequence: UInt64, message: SpoolMessage)]
            do {
                batch = try publisher.spool.messages(from: nextToSend, limit: configuration.maximumInflight - inflight.count)
            } catch {
                fail("\(error)")
                return
            }
            guard !batch.isEmpty else { return }
            for (sequence, message) in batch {
                do throws(MQTTError) {
                    let mid = try connection.publish(
                        topic: message.topic, payload: message.payload, qos: Int32(message.qos), retain: message.retain)
                    // QoS 0 has no acknowledgement: handed over is as far as it goes.
                    if message.qos == 0 { publisher.spool.acknowledge(sequence) } else { inflight[mid] = sequence }
                    nextToSend = sequence + 1
                } catch {
                    lost(because: "\(error)")
                    return
                }
            }
        }
    }

    /// Sleeps in `poll()` until the broker's socket or the wake-up pipe has something, or
    /// the next keep-alive, retry or drain deadline.
    private func waitForWork(stopping: Bool, now: Int64) {
        var timeout: Int64 = 1000  // libmosquitto's housekeeping wants a call about once a second
        if !connected, connection?.socket ?? -1 < 0 { timeout = min(timeout, max(0, nextAttempt - now)) }
        if stopping { timeout = min(timeout, 50) }
        var descriptors = [pollfd(fd: publisher.wakeUps.readDescriptor, events: Int16(POLLIN), revents: 0)]
        if let socket = connection?.socket, socket >= 0 {
            let events = POLLIN | (connection?.wantsWrite == true ? POLLOUT : 0)
            descriptors.append(pollfd(fd: socket, events: Int16(events), revents: 0))
        }
        _ = retryingInterrupts { poll(&descriptors, nfds_t(descriptors.count), Int32(timeout)) }
        if descriptors[0].revents != 0 { publisher.wakeUps.drain() }
    }

    /// Lets libmosquitto read, write and keep the connection alive, then handles what
    /// its callbacks reported.
    private mutating func step() {
        guard let connection else { return }
        var failure: MQTTError?
        if connection.socket >= 0 {
            do throws(MQTTError) {
                try connection.readPackets()
                if connection.wantsWrite { try connection.writePackets() }
                try connection.housekeeping()
            } catch {
                failure = error
            }
        }
        // The callbacks first: a refused CONNACK also fails the read, and is the better reason.
        let events = connection.takeEvents()
        handle(events)
        if let failure, !stopped, !events.connackCodes.contains(where: { $0 != 0 }) { lost(because: "\(failure)") }
    }

    private mutating func handle(_ events: MQTTConnection.Events) {
        let sequences = events.published.compactMap { inflight.removeValue(forKey: $0) }
        let acknowledged = !sequences.isEmpty
        if acknowledged { publisher.spool.acknowledge(sequences) }
        for code in events.connackCodes {
            switch code {
            case 0:
                connected = true
                backoff.reset()
                publisher.onStatus(.connected(configuration.broker))
                outageReported = false
            case 4, 5:
                // Bad user name or password, not authorised: retrying cannot help.
                publisher.onStatus(.refused(configuration.broker, reason: MQTTConnection.connackText(code)))
                stopped = true
            default:
                connection?.disconnect()
                retryLater(because: MQTTConnection.connackText(code))
            }
        }
        if !stopped, events.disconnects.contains(where: { $0 != 0 }) { lost(because: "the connection was lost") }
        if acknowledged {
            do {
                // Written at once (a SIGKILL cannot undo it), synced about once a second.
                try publisher.spool.flushAcknowledgements(durably: false)
            } catch {
                fail("\(error)")
            }
        }
    }

    private mutating func lost(because reason: String) {
        connected = false
        retryLater(because: reason)
    }

    private mutating func retryLater(because reason: String) {
        // One failure can be reported twice (a failed read and the disconnect callback):
        // the retry it scheduled stands.
        guard nextAttempt <= Monotonic.milliseconds else { return }
        let delay = backoff.nextDelayMilliseconds()
        nextAttempt = Monotonic.milliseconds + Int64(delay)
        if !outageReported {
            publisher.onStatus(.waiting(configuration.broker, reason: reason, retryIn: Duration.milliseconds(Int64(delay))))
            outageReported = true
        }
    }

    private mutating func fail(_ reason: String) {
        publisher.onStatus(.failed(reason: reason))
        stopped = true
    }
}
