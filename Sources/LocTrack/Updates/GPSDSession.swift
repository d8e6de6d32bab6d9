import Synchronization
import LocTrackSystem

/// One gpsd connection and everyone iterating over its events.
///
/// The connection opens when the first iterator of ``events(bufferingPolicy:startingWithLatestNoOlderThan:)``
/// or ``fixes(bufferingPolicy:startingWithLatestNoOlderThan:)`` starts, and closes
/// when the last one ends (finishes, throws, is cancelled, or is released), so many
/// consumers cost gpsd one client slot. Every iterator keeps its session alive, so
/// `for try await fix in GPSDSession().fixes()` needs no other reference.
/// `shared(_:)` gives every part of a program the same session for a source while
/// anyone uses it.
public final class GPSDSession: Sendable {
    public let source: GPSDSource
    public let reconnectPolicy: ReconnectPolicy
    /// Whether the event sequences get satellite counts from gpsd's SKY reports.
    public let reportsSatellites: Bool
    /// The executor the session's consumers run on, which its reader thread lends itself
    /// to before it sleeps (nil: the reader lends itself to nobody).
    public let consumerExecutor: ConsumerExecutor?
    private let connector: any GPSDConnector
    private let timings: ReaderTimings
    private let state = Mutex(State())

    private struct State {
        var connection: Connection?
        /// ``finish()`` came while no connection was open (e.g. before the first
        /// iteration started): the next iteration ends at once.
        var finishRequested = false
    }

    /// One reader thread and the serial processor that carries its events. The reader
    /// thread is this object's: when its last holder (the session's record, a subscribe in
    /// progress) lets go, the reader is asked to stop and the thread is joined, so a session
    /// whose connection ended holds no thread. When that release happens on the reader
    /// thread itself (a consumer that runs there, through `consumersRunOn:`, ended the last
    /// iteration), ``ThreadReaper`` joins it instead.
    final class Connection: Sendable {
        let reader: ReaderThread
        let processor: SerialProcessor
        private let thread = ThreadOwner()

        init(reader: ReaderThread, processor: SerialProcessor) {
            self.reader = reader
            self.processor = processor
        }

        /// Starts the reader thread.
        func start() throws(LocTrackError) {
            try reader.start(ownedBy: thread)
        }

        // The thread property goes after this: the stop is asked first, then the join waits.
        deinit {
            reader.control.requestStop(flushing: false)
        }

        /// Tells the reader what a new consumer needs from gpsd.
        func ask(for options: SubscriberOptions) {
            if options.includesProvisionalFixes { reader.control.sendsProvisionalFixes = true }
            if options.latestNoOlderThan != nil { reader.control.requestPoll() }
        }
    }

    /// A session of its own (not shared) for `source`.
    ///
    /// - Parameters:
    ///   - reconnectPolicy: `.never` (the default) throws connection errors to the
    ///     iterations; `.automatic` keeps retrying and reports each outage as a status.
    ///   - reportsSatellites: read satellite counts from SKY reports and deliver them as
    ///     ``GPSDStatus/satellites(seen:used:)`` (otherwise SKY, most of gpsd's bytes,
    ///     is skipped unread).
    ///   - consumerExecutor: the executor the consumers of this session run on (their
    ///     tasks' executor preference). The reader thread then lends itself to it each
    ///     time it has drained gpsd's socket and hands on a batch, so a consumer waiting
    ///     for that batch runs on the reader thread, which would sleep next anyway, instead
    ///     of waking a thread of its own: one wake-up per fix. The consumer's time is then
    ///     the reader's (see ``ConsumerExecutor``). nil (the default): nothing is lent.
    public convenience init(
        source: GPSDSource = .default, reconnectPolicy: ReconnectPolicy = .never, reportsSatellites: Bool = false,
        consumersRunOn consumerExecutor: ConsumerExecutor? = nil
    ) {
        self.init(source: source, reconnectPolicy: reconnectPolicy, reportsSatellites: reportsSatellites,
                  connector: LibgpsConnector(), timings: .standard, consumerExecutor: consumerExecutor)
    }

    /// The seam for tests: another transport and shorter timings.
    init(
        source: GPSDSource, reconnectPolicy: ReconnectPolicy, reportsSatellites: Bool,
        connector: any GPSDConnector, timings: ReaderTimings, consumerExecutor: ConsumerExecutor? = nil
    ) {
        self.source = source
        self.reconnectPolicy = reconnectPolicy
        self.reportsSatellites = reportsSatellites
        self.consumerExecutor = consumerExecutor
        self.connector = connector
        self.timings = timings
    }

    // Iterators hold the session, so none is left when it goes; a reader still running
    // here had no consumer left to stop it. Its connection goes with the state, which
    // stops the reader and joins its thread.

    private static let registry = Mutex<[GPSDSource: WeakSession]>([:])

    private struct WeakSession {
        weak var session: GPSDSession?
    }

    /// The process-wide session for `source`: one gpsd connection however many
    /// consumers. It lives while someone holds it or iterates over it; after that,
    /// the next call makes a new one.
    public static func shared(_ source: GPSDSource = .default) -> GPSDSession {
        registry.withLock { sessions in
            if let session = sessions[source]?.session { return session }
            sessions = sessions.filter { $0.value.session != nil }
            let session = GPSDSession(source: source)
            sessions[source] = WeakSession(session: session)
            return session
        }
    }

    /// Fixes and statuses in the order the reader saw them: `for try await event in session.events()`.
    ///
    /// - Parameter bufferingPolicy: what this consumer's queue does when it falls
    ///   behind. The default, `.bounded(1024)`, never drops: when 1024 events wait,
    ///   loctrack stops reading from gpsd until this consumer catches up.
    /// - Parameter maximumAge: when set, the sequence starts with the fix gpsd
    ///   already has (asked with `?POLL`), if it is no older than this by gpsd's
    ///   own clock; a warm gpsd answers within milliseconds. Then live events follow.
    public func events(
        bufferingPolicy: FixBufferingPolicy = .default, startingWithLatestNoOlderThan maximumAge: Duration? = nil
    ) -> AsyncGPSDEventSequence {
        AsyncGPSDEventSequence(session: self, options: SubscriberOptions(
            bufferingPolicy: bufferingPolicy, includesStatuses: true, latestNoOlderThan: maximumAge))
    }

    /// The live fixes, one per epoch, in order: `for try await fix in session.fixes()`.
    /// The fixes of ``events(bufferingPolicy:startingWithLatestNoOlderThan:)``, without the statuses.
    public func fixes(
        bufferingPolicy: FixBufferingPolicy = .default, startingWithLatestNoOlderThan maximumAge: Duration? = nil
    ) -> AsyncFixSequence {
        AsyncFixSequence(events: AsyncGPSDEventSequence(session: self, options: SubscriberOptions(
            bufferingPolicy: bufferingPolicy, includesStatuses: false, latestNoOlderThan: maximumAge)))
    }

    /// Ends every iteration gracefully: fixes already read from gpsd (including
    /// an epoch still being assembled) are delivered, then the sequences finish
    /// without error and the connection closes. For SIGINT/SIGTERM handling.
    ///
    /// If no connection is open yet, the next iteration to start ends at once.
    public func finish() {
        let connection = state.withLock { state -> Connection? in
            if state.connection == nil { state.finishRequested = true }
            return state.connection
        }
        connection?.reader.control.requestStop(flushing: true)
    }

    /// A new consumer on the current connection, or on a new one.
    func subscribe(_ options: SubscriberOptions) -> Subscription.Start {
        // A connection that ended is released after the lock: its release joins its thread.
        let (start, ended) = state.withLock { state -> (Subscription.Start, Connection?) in
            if let connection = state.connection, let id = connection.processor.add(options) {
                connection.ask(for: options)
                return (.subscribed(connection, id, self), nil)
            }
            let ended = state.connection.take()  // ended, or its last consumer left
            if state.finishRequested {
                state.finishRequested = false
                return (.finished, ended)
            }
            do throws(LocTrackError) {
                let connection = try makeConnection()
                // The first consumer is in before the reader starts: what the reader sees
                // first (gpsd's banner, a connection refused at once) has someone to go to,
                // and a failure is thrown, not taken for the end of a closed processor.
                guard let id = connection.processor.add(options) else { return (.finished, ended) }
                connection.ask(for: options)
                try connection.start()
                state.connection = connection
                return (.subscribed(connection, id, self), ended)
            } catch {
                return (.failed(error), ended)
            }
        }
        withExtendedLifetime(ended) {}
        return start
    }

    /// Drops the record of a connection whose last consumer left or whose reader ended,
    /// so a session kept between iterations holds no descriptor (its wake-up pipe).
    /// The connection is released after the lock: its release joins the reader thread.
    fileprivate func forgetConnection(ifClosed processor: SerialProcessor) {
        let ended = state.withLock { state -> Connection? in
            guard let connection = state.connection, connection.processor === processor, processor.isClosed else { return nil }
            return state.connection.take()
        }
        withExtendedLifetime(ended) {}
    }

    /// A reader and its processor; the reader is not started yet.
    private func makeConnection() throws(LocTrackError) -> Connection {
        let control: ReaderControl
        do {
            control = try ReaderControl()
        } catch {
            throw LocTrackError(.cannotConnect, source: source, failedCall: "pipe", error)
        }
        let processor = SerialProcessor(reader: control)
        let reader = ReaderThread(
            source: source, reconnectPolicy: reconnectPolicy, reportsSatellites: reportsSatellites,
            connector: connector, timings: timings, control: control, consumerExecutor: consumerExecutor,
            deliver: processor.submit)
        return Connection(reader: reader, processor: processor)
    }
}

/// One consumer's place in a session: what an iterator holds. Releasing it (the
/// iterator ended or was dropped) removes the consumer; the last one stops the
/// reader and closes the connection. It holds the session, so a session that only
/// a loop refers to lives as long as the loop.
final class Subscription: Sendable {
    enum Start {
        case subscribed(GPSDSession.Connection, UInt64, GPSDSession)
        /// ``GPSDSession/finish()`` came before this iteration started.
        case finished
        case failed(LocTrackError)
    }

    let processor: SerialProcessor
    let id: UInt64
    private let session: GPSDSession

    init(processor: SerialProcessor, id: UInt64, session: GPSDSession) {
        self.processor = processor
        self.id = id
        self.session = session
    }

    deinit {
        processor.remove(id)
        session.forgetConnection(ifClosed: processor)
    }
}
