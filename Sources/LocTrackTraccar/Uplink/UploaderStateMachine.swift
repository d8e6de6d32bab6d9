import LocTrack
import LocTrackSpool
import LocTrackSystem

/// The uplink's decisions, with no I/O: what to send, what a reply retires, when to
/// retry, what to report, when to stop. Pure: it reads no clock (every input that depends
/// on time carries `now`, in monotonic milliseconds), touches neither the spool nor the
/// network, and draws its backoff jitter from the generator it was given.
/// ``UploaderLoop`` feeds it what happened and asks ``nextAction(now:)`` what to do, until
/// the answer is to sleep; the unit tests do the same with a clock of their own.
///
/// The rules, from what Traccar does with what it receives:
/// - **Strictly oldest first, one request at a time.** Traccar adds distance in arrival
///   order and runs no events for a position older than its last, so the spool's head
///   is sent, and nothing after it until the server has it.
/// - **2xx** retires the head. **5xx**, a request that never left, and a connection closed
///   without a reply are retried after a jittered backoff (0.5 s doubling to 5 s): a
///   server that is back is used within seconds. A close without a reply is ambiguous
///   (Traccar closes so for a disabled device, and the server may have stored it): the
///   position is sent again and counted in ``possibleDuplicates``.
/// - **400** is Traccar's "unknown device": said once, and the head offered again every
///   30 s (never dropped, never hammered). Other 4xx, and 3xx (redirects are not
///   followed), are treated the same and said with their status.
/// - An outage or a refusal is reported once, and the first 2xx after it says so.
///
/// Modelled on ``PublisherStateMachine`` (LocTrackMQTT) and swift-async-algorithms'
/// `BoundedBufferStateMachine`: inputs change the state, the caller performs the actions.
struct UploaderStateMachine<Jitter: RandomNumberGenerator> {
    enum Phase: Equatable {
        /// Send whenever there is something to send.
        case ready
        /// ``UploaderAction/send(from:)`` was handed out; its outcome is awaited.
        case sending
        /// After a failure: the next attempt is due at `at`.
        case retrying(at: Int64)
        /// After a refusal (4xx): the next offer is due at `at`.
        case probing(at: Int64)
    }

    /// What was reported and not yet ended by a 2xx.
    enum Problem: Equatable {
        case outage
        case refused(status: Int)
    }

    /// `HOST:PORT`, for messages.
    let server: String
    let deviceID: String
    /// How long a refused position waits before it is offered again.
    let probeMilliseconds: Int64
    private(set) var phase: Phase = .ready
    /// The next spool sequence to send: the oldest the server does not have.
    private(set) var head: UInt64
    /// The spool's next sequence, as the loop last saw it: below it, from ``head``, is
    /// what there is to send.
    private var spoolEnd: UInt64
    private var backoff: Backoff
    private var jitter: Jitter
    private var problem: Problem?
    /// Positions sent again after a connection closed without a reply: the server may
    /// have stored them twice.
    private(set) var possibleDuplicates = 0
    private var stopDeadline: Int64?
    /// The spool failed: nothing more is tried.
    private var fatal = false
    private var finished = false

    // What inputs caused and nextAction(now:) hands out, in this order.
    private var reports: [UplinkStatus] = []
    private var retired: [UInt64] = []

    /// The retry policy: 0.5 s doubling to 5 s, each delay drawn within its step.
    static var retryPolicy: ReconnectPolicy { .backoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(5)) }

    /// - Parameters:
    ///   - firstUnacknowledged: the spool's head; sending starts there.
    ///   - probeInterval: how long a refused position waits (30 s).
    ///   - jitter: where the backoff draws each delay within its step.
    init(
        server: String, deviceID: String, firstUnacknowledged: UInt64, retryPolicy: ReconnectPolicy = Self.retryPolicy,
        probeInterval: Duration = .seconds(30), jitter: Jitter
    ) {
        self.server = server
        self.deviceID = deviceID
        self.probeMilliseconds = probeInterval.milliseconds
        self.head = firstUnacknowledged
        self.spoolEnd = firstUnacknowledged
        self.backoff = Backoff(retryPolicy)
        self.jitter = jitter
    }

    var isFinished: Bool { finished }

    // MARK: What to do

    /// What to do next. The loop performs it, feeds back what came of it, and asks again
    /// until the answer is ``UploaderAction/sleep(until:)`` or ``UploaderAction/finish``.
    ///
    /// In order: what inputs caused (reports, then acknowledgements), then the end when
    /// it is due, the head when it may be sent, and otherwise sleep until the next deadline.
    mutating func nextAction(now: Int64) -> UploaderAction {
        if !reports.isEmpty { return .report(reports.removeFirst()) }
        if !retired.isEmpty { return .acknowledge(retired.removeFirst()) }
        if finished || fatal || stopIsDue(now: now) {
            finished = true
            return .finish
        }
        guard head < spoolEnd else { return .sleep(until: wakeDeadline(now: now)) }
        switch phase {
        case .ready:
            break
        case .retrying(let at), .probing(let at):
            guard now >= at else { return .sleep(until: wakeDeadline(now: now)) }
        case .sending:
            preconditionFailure("the uploader was asked what to do while a request is under way")
        }
        phase = .sending
        return .send(from: head)
    }

    /// A stop was asked for and: everything spooled is sent, the deadline passed, or the
    /// next attempt is not due before it.
    private func stopIsDue(now: Int64) -> Bool {
        guard let stopDeadline else { return false }
        if head >= spoolEnd || now >= stopDeadline { return true }
        switch phase {
        case .retrying(let at), .probing(let at): return at >= stopDeadline
        case .ready, .sending: return false
        }
    }

    /// A due retry or probe, or the stop's deadline, whichever is first; `Int64.max`
    /// (until woken) when there is nothing to wait for.
    private func wakeDeadline(now: Int64) -> Int64 {
        var deadline = Int64.max
        if head < spoolEnd {
            switch phase {
            case .retrying(let at), .probing(let at): deadline = at
            case .ready, .sending: break
            }
        }
        if let stopDeadline { deadline = min(deadline, stopDeadline) }
        return max(deadline, now)
    }

    // MARK: Inputs from the spool and the program

    /// The spool's next sequence is `end`: there is something to send below it.
    mutating func appended(upTo end: UInt64) {
        spoolEnd = max(spoolEnd, end)
    }

    /// The spool had nothing from the sequence ``UploaderAction/send(from:)`` asked for
    /// (not expected: the spool keeps its newest position): back to waiting for appends.
    mutating func nothingToSend() {
        phase = .ready
        spoolEnd = head
    }

    /// Stop once everything spooled is sent, or at `deadline`, whichever is first; at
    /// once when the next attempt is not due before it. The first request's deadline stands.
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

    /// The request for spool position `sequence` (the head, or later when the spool
    /// dropped the oldest) ended with `outcome`.
    mutating func completed(_ sequence: UInt64, outcome: HTTPOutcome, now: Int64) {
        head = max(head, sequence)
        switch outcome {
        case .reply(let status) where (200..<300).contains(status):
            retired.append(sequence)
            head = sequence + 1
            phase = .ready
            backoff.reset()
            if problem != nil, !isStopping(now: now) { reports.append(.resumed(server: server)) }
            problem = nil
        case .reply(let status) where (300..<500).contains(status):
            // The server answered: it is up, and a retry soon would be refused again.
            backoff.reset()
            phase = .probing(at: now + probeMilliseconds)
            let every = Duration.milliseconds(probeMilliseconds)
            report(
                .refused(status: status),
                status == 400
                    ? .unknownDevice(deviceID: deviceID, probeEvery: every)
                    : .refused(server: server, deviceID: deviceID, status: status, probeEvery: every),
                now: now)
        case .reply(let status):
            retryLater(because: "HTTP \(status)", now: now)
        case .failed(let failure):
            if failure.kind == .noReply { possibleDuplicates += 1 }
            retryLater(because: failure.reason, now: now)
        }
    }

    private mutating func retryLater(because reason: String, now: Int64) {
        let delay = Int64(backoff.nextDelayMilliseconds(using: &jitter))
        phase = .retrying(at: now + delay)
        report(.outage, .waiting(server: server, reason: reason, retryIn: .milliseconds(delay)), now: now)
    }

    /// Reports `status` when `problem` is new (not while stopping: a request the stop cut
    /// short is no news).
    private mutating func report(_ problem: Problem, _ status: UplinkStatus, now: Int64) {
        guard self.problem != problem else { return }
        self.problem = problem
        if !isStopping(now: now) { reports.append(status) }
    }

    private func isStopping(now: Int64) -> Bool {
        stopDeadline.map { now >= $0 } ?? false
    }
}
