import LocTrack
import LocTrackSpool

/// The publisher's decisions, with no I/O: when to connect, what to send, what the
/// broker's acknowledgements retire, what to report, when to stop. Pure: it reads no
/// clock (every input that depends on time carries `now`, in monotonic milliseconds),
/// touches neither the spool nor the network, and draws its backoff jitter from the
/// generator it was given. ``PublisherLoop`` feeds it what happened and asks
/// ``nextAction(now:)`` what to do, until the answer is to sleep; the unit tests do the
/// same with an in-memory broker and a clock of their own.
///
/// Modelled on swift-async-algorithms' `BoundedBufferStateMachine`: inputs change the
/// state, the caller performs the actions. Inputs never perform anything themselves, so
/// what one input causes (a report, acknowledgements, a disconnect) waits here until
/// ``nextAction(now:)`` hands it out.
struct PublisherStateMachine<Jitter: RandomNumberGenerator> {
    /// Where the connection is.
    enum Connection: Equatable {
        /// No connection; the next attempt is due at `retryAt`.
        case waiting(retryAt: Int64)
        /// An attempt is under way (TCP connecting or CONNACK awaited); `first` when it
        /// was ``PublisherAction/connect``, whose failure means the next is one too.
        case connecting(first: Bool)
        case connected
    }

    let broker: BrokerURL
    /// QoS 1/2 messages handed over and not yet acknowledged, at most.
    let maximumInflight: Int
    private(set) var connection: Connection = .waiting(retryAt: .min)
    /// A connection was started, so the next attempt reconnects the same session.
    private var hasSession = false
    private var backoff: Backoff
    private var jitter: Jitter
    /// An outage was reported; a CONNACK 0 ends it (``PublisherStatus/connected(_:)``).
    private var outageReported = false
    /// The next spool sequence to hand over.
    private(set) var nextToSend: UInt64
    /// The spool's next sequence, as the loop last saw it: below it, from
    /// ``nextToSend``, is what there is to send.
    private var spoolEnd: UInt64
    /// Message id → spool sequence, for QoS 1/2 messages awaiting acknowledgement.
    private var inflight: [Int32: UInt64] = [:]
    private var stopDeadline: Int64?
    /// Refused, or the spool failed: nothing more is tried.
    private var fatal = false
    private var finished = false

    // What inputs caused and nextAction(now:) hands out, in this order.
    private var reports: [PublisherStatus] = []
    private var retired: [UInt64] = []
    private var disconnectDue = false
    /// The configuration has greetings or subscriptions: each accepted connection gets them.
    let greets: Bool
    private var greetingDue = false

    /// - Parameters:
    ///   - firstUnacknowledged: the spool's head; sending starts there.
    ///   - reconnectPolicy: retries as gpsd's are, 0.5 s doubling to 30 s, jittered.
    ///   - jitter: where the backoff draws each delay within its step.
    init(
        broker: BrokerURL, maximumInflight: Int, firstUnacknowledged: UInt64,
        reconnectPolicy: ReconnectPolicy = .automatic, greets: Bool = false, jitter: Jitter
    ) {
        self.greets = greets
        self.broker = broker
        self.maximumInflight = maximumInflight
        self.nextToSend = firstUnacknowledged
        self.spoolEnd = firstUnacknowledged
        self.backoff = Backoff(reconnectPolicy)
        self.jitter = jitter
    }

    var isFinished: Bool { finished }

    // MARK: What to do

    /// libmosquitto's keep-alive and retries want a call about once a second.
    static var housekeepingMilliseconds: Int64 { 1000 }

    /// What to do next. The loop performs it, feeds back what came of it, and asks again
    /// until the answer is ``PublisherAction/sleep(until:)`` or
    /// ``PublisherAction/finish(disconnecting:)``.
    ///
    /// In order: what inputs caused (reports, acknowledgements, a disconnect), then the
    /// end when it is due, a connection attempt when one is due, the next batch while the
    /// window has room, and otherwise sleep until the next deadline.
    mutating func nextAction(now: Int64) -> PublisherAction {
        if !reports.isEmpty { return .report(reports.removeFirst()) }
        if !retired.isEmpty {
            defer { retired = [] }
            return .acknowledge(retired)
        }
        if disconnectDue {
            disconnectDue = false
            return .disconnect
        }
        if greetingDue {
            greetingDue = false
            if connection == .connected { return .greet }
        }
        if finished || fatal || stopIsDue(now: now) {
            // A connected client says goodbye, so that the broker does not publish its will.
            let disconnecting = !finished && connection == .connected
            finished = true
            return .finish(disconnecting: disconnecting)
        }
        switch connection {
        case .waiting(let retryAt) where stopDeadline == nil && now >= retryAt:
            let first = !hasSession
            hasSession = true
            connection = .connecting(first: first)
            return first ? .connect : .reconnect
        case .connected where inflight.count < maximumInflight && nextToSend < spoolEnd:
            return .publish(from: nextToSend, limit: maximumInflight - inflight.count)
        default:
            return .sleep(until: wakeDeadline(now: now))
        }
    }

    /// A stop was asked for and: not connected (nothing can drain), the deadline passed,
    /// or everything spooled is acknowledged.
    private func stopIsDue(now: Int64) -> Bool {
        guard let stopDeadline else { return false }
        return connection != .connected || now >= stopDeadline || (inflight.isEmpty && nextToSend >= spoolEnd)
    }

    /// The housekeeping call, a due retry, or the drain's deadline, whichever is first.
    private func wakeDeadline(now: Int64) -> Int64 {
        var deadline = now + Self.housekeepingMilliseconds
        if case .waiting(let retryAt) = connection { deadline = min(deadline, retryAt) }
        if let stopDeadline { deadline = min(deadline, stopDeadline) }
        return max(deadline, now)
    }

    // MARK: Inputs from the spool and the program

    /// The spool's next sequence is `end`: there is something to send below it.
    mutating func appended(upTo end: UInt64) {
        spoolEnd = end
    }

    /// Stop once what is spooled is acknowledged, or at `deadline`, whichever is first;
    /// at once when not connected. The first request's deadline stands.
    mutating func stopRequested(deadline: Int64) {
        if stopDeadline == nil { stopDeadline = deadline }
    }

    /// The spool failed (reading it, writing its head), which retrying cannot mend: report
    /// its error and stop.
    mutating func spoolFailed(_ error: SpoolError) {
        guard !fatal else { return }
        reports.append(.spoolFailed(error))
        fatal = true
    }

    // MARK: Inputs from the transport

    /// ``PublisherAction/connect`` or ``PublisherAction/reconnect`` failed at once (the
    /// name did not resolve, no route): retry later.
    mutating func connectFailed(_ reason: String, now: Int64) {
        if case .connecting(first: true) = connection { hasSession = false }
        retryLater(because: reason, now: now)
    }

    /// The broker answered CONNECT: 0 accepted; 4 (bad user name or password) and 5 (not
    /// authorised) are fatal, as retrying cannot help; anything else is retried.
    mutating func connackReceived(_ code: Int32, reason: String, now: Int64) {
        switch code {
        case 0:
            connection = .connected
            backoff.reset()
            reports.append(.connected(broker))
            outageReported = false
            greetingDue = greets
        case 4, 5:
            reports.append(.refused(broker, reason: reason))
            fatal = true
        default:
            disconnectDue = true
            retryLater(because: reason, now: now)
        }
    }

    /// The broker has the messages with these ids (ids not in flight, QoS 0's, are ignored).
    mutating func acknowledged(_ messageIDs: [Int32]) {
        for id in messageIDs {
            if let sequence = inflight.removeValue(forKey: id) { retired.append(sequence) }
        }
    }

    /// The connection failed or dropped: retry after the backoff, reporting the outage
    /// once. A failure reported twice (a failed read, then the disconnect callback)
    /// keeps the retry the first one scheduled.
    mutating func connectionLost(_ reason: String, now: Int64) {
        guard !fatal else { return }
        retryLater(because: reason, now: now)
    }

    /// Handing a message over failed: the connection is gone.
    mutating func sendFailed(_ reason: String, now: Int64) {
        connectionLost(reason, now: now)
    }

    /// Spool message `sequence` was handed over as `messageID`. QoS 0 has no
    /// acknowledgement: handed over is as far as it goes, so it is retired at once.
    mutating func handedOver(_ sequence: UInt64, messageID: Int32, qos: UInt8) {
        if qos == 0 { retired.append(sequence) } else { inflight[messageID] = sequence }
        nextToSend = sequence + 1
    }

    /// One step's events, in the order that gives the best reason: acknowledgements,
    /// then CONNACKs, then disconnects, then the step's own `failure`, which is ignored
    /// when a CONNACK refused (a refusal also fails the read, and says why). A failure that
    /// `explains` the loss (a refused TLS handshake, which libmosquitto 2.0.21 finishes in
    /// the first read and also reports as a disconnect) comes before the disconnects.
    mutating func received(
        _ events: MQTTEvents, failure: String?, explains: Bool = false, now: Int64, describingConnack describe: (Int32) -> String
    ) {
        if !events.published.isEmpty { acknowledged(events.published) }
        for code in events.connackCodes {
            connackReceived(code, reason: code == 0 ? "" : describe(code), now: now)
        }
        let refused = events.connackCodes.contains { $0 != 0 }
        if let failure, explains, !refused { connectionLost(failure, now: now) }
        if events.disconnects.contains(where: { $0 != 0 }) { connectionLost("the connection was lost", now: now) }
        if let failure, !refused { connectionLost(failure, now: now) }
    }

    private mutating func retryLater(because reason: String, now: Int64) {
        if case .waiting = connection { return }
        let delay = Int64(backoff.nextDelayMilliseconds(using: &jitter))
        connection = .waiting(retryAt: now + delay)
        if !outageReported {
            reports.append(.waiting(broker, reason: reason, retryIn: .milliseconds(delay)))
            outageReported = true
        }
    }
}
