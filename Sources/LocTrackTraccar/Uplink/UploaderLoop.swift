import LocTrack
import LocTrackSpool
import LocTrackSystem
import Synchronization

/// The uplink's thread: a thin driver around ``UploaderStateMachine``. It feeds the
/// machine what the spool, the stop request and the clock say, and performs the actions
/// it gets back: spool reads and acknowledgements, one request at a time through the
/// transport, status reports, and sleeping on the wake-up pipe.
///
/// Generic over the transport: libcurl's ``CurlTransport`` in the program, an in-memory
/// server in the unit tests (which call ``performUntilSleep()`` themselves, with a clock
/// of their own, instead of ``run()``). Organised as LocTrackMQTT's `PublisherLoop`.
struct UploaderLoop<Transport: HTTPTransport, Jitter: RandomNumberGenerator> {
    let core: UplinkCore
    let transport: Transport
    /// Monotonic milliseconds: read after every request, which may take seconds.
    let clock: () -> Int64
    private(set) var machine: UploaderStateMachine<Jitter>
    /// The stop request was handed to the machine.
    private var stopSeen = false
    /// Positions read from the spool ahead of sending, oldest first: a backlog is read a
    /// few hundred at a time, not once per request.
    private var readAhead: [(sequence: UInt64, message: SpoolMessage)] = []
    private var readAheadStart = 0
    static var readAheadCount: Int { 256 }

    init(core: UplinkCore, transport: Transport, jitter: Jitter, clock: @escaping () -> Int64 = { Monotonic.milliseconds }) {
        self.core = core
        self.transport = transport
        self.clock = clock
        let url = core.configuration.url
        machine = UploaderStateMachine(
            server: url.server, deviceID: url.deviceID, firstUnacknowledged: core.spool.firstUnacknowledged,
            probeInterval: core.configuration.probeInterval, jitter: jitter)
    }

    /// Runs until the machine finishes: a stop or a fatal error.
    mutating func run() {
        while let deadline = performUntilSleep() {
            waitForWork(until: deadline)
        }
    }

    /// Tells the machine about a stop request and the spool's end, then performs its
    /// actions until it sleeps.
    /// - Returns: when to wake up at the latest (`Int64.max`: when woken), or nil once the
    ///   machine has finished.
    mutating func performUntilSleep() -> Int64? {
        var now = clock()
        takeNews()
        while true {
            switch machine.nextAction(now: now) {
            case .send(let first):
                send(from: first)
                now = clock()
                // A backlog drains in one wake-up: a stop asked for meanwhile must not wait
                // for its end, and what was spooled before the stop must not be left out.
                takeNews()
            case .acknowledge(let sequence):
                acknowledge(sequence)
            case .report(let status):
                core.onStatus(status)
            case .sleep(let deadline):
                return deadline
            case .finish:
                try? core.spool.flushAcknowledgements(durably: true)
                return nil
            }
        }
    }

    /// Hands the machine the stop's deadline, once the program has set it, then the spool's
    /// end: in this order, so that everything spooled before the program asked to stop is
    /// what the stop drains (the program appends, then asks; the spool's mutex makes the
    /// appends visible here once the deadline is).
    private mutating func takeNews() {
        if !stopSeen, case let deadline = core.stopDeadline.milliseconds, deadline != .max {
            stopSeen = true
            machine.stopRequested(deadline: deadline)
        }
        machine.appended(upTo: core.spool.nextSequence)
    }

    /// Sends the first spooled position from `first` on, and hands the machine the outcome.
    private mutating func send(from first: UInt64) {
        let position: (sequence: UInt64, message: SpoolMessage)
        do throws(SpoolError) {
            guard let next = try nextPosition(from: first) else {
                machine.nothingToSend()
                return
            }
            position = next
        } catch {
            // Fatal: the machine's next action is the report, then the end.
            machine.spoolFailed(error)
            return
        }
        let outcome = transport.send(query: position.message.payload)
        machine.completed(position.sequence, outcome: outcome, now: clock())
        core.possibleDuplicates.store(machine.possibleDuplicates, ordering: .relaxed)
    }

    /// The first spooled position at or after `first`, from what was read ahead or, when
    /// that is used up, from the spool (which starts at its head when that is later).
    private mutating func nextPosition(from first: UInt64) throws(SpoolError) -> (sequence: UInt64, message: SpoolMessage)? {
        while readAheadStart < readAhead.count, readAhead[readAheadStart].sequence < first { readAheadStart += 1 }
        if readAheadStart == readAhead.count {
            readAhead = try core.spool.messages(from: first, limit: Self.readAheadCount)
            readAheadStart = 0
        }
        return readAheadStart < readAhead.count ? readAhead[readAheadStart] : nil
    }

    private mutating func acknowledge(_ sequence: UInt64) {
        core.spool.acknowledge(sequence)
        do throws(SpoolError) {
            // Written at once (a SIGKILL cannot undo it), synced about once a second.
            try core.spool.flushAcknowledgements(durably: false)
        } catch {
            machine.spoolFailed(error)
        }
    }

    /// Sleeps on the wake-up pipe until the program appends or asks to stop, or `deadline`.
    private func waitForWork(until deadline: Int64) {
        let timeout = deadline == .max ? -1 : Int32(clamping: max(0, deadline - clock()))
        // A failed poll (ENOMEM) is a short sleep: the loop decides again by the deadline.
        _ = try? core.channel.wakeUps.wait(milliseconds: timeout)
    }
}

extension UploaderLoop where Transport == CurlTransport, Jitter == SystemRandomNumberGenerator {
    /// The thread's body: a libcurl handle set up from the configuration, and the loop
    /// over it until the uplink stops.
    static func runWithCurl(_ core: UplinkCore, library: CurlLibrary) {
        let transport: CurlTransport
        do throws(CurlError) {
            transport = try CurlTransport(library: library, configuration: core.configuration, stopDeadline: core.stopDeadline)
        } catch {
            core.onStatus(.failed(reason: error.description))
            return
        }
        var loop = UploaderLoop(core: core, transport: transport, jitter: SystemRandomNumberGenerator())
        loop.run()
    }
}
