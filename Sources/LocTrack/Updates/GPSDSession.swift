import Synchronization

/// One shared gpsd connection and everyone iterating over its fixes.
///
/// The connection opens when the first ``AsyncFixSequence`` iterator starts
/// and closes after the last one ends (finishes, throws, or its task is
/// cancelled), so many consumers cost gpsd one client slot. `shared(_:)`
/// gives every part of a program the same session for the same source.
public final class GPSDSession: Sendable {
    public let source: GPSDSource
    public let reconnectPolicy: ReconnectPolicy
    /// Whether the status handler gets satellite counts from gpsd's SKY reports.
    public let reportsSatellites: Bool
    private let statusHandler: (@Sendable (GPSDStatus) -> Void)?
    private let state = Mutex(State())
    private let deliveredFixes = Atomic<Int>(0)

    /// How many fixes this session has handed to its consumers so far. Read in the
    /// status handler, it says where in the fix sequence a status falls: statuses are
    /// handled in order with fixes, but a consumer may still have earlier fixes queued.
    public var fixesDelivered: Int { deliveredFixes.load(ordering: .sequentiallyConsistent) }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextSubscriberID: UInt64 = 0
        var connection: Connection?
        /// Which connection is current; events from an older one are ignored.
        var generation: UInt64 = 0
        /// The reader paused because a consumer fell behind.
        var readerPaused = false
        /// ``finish()`` came while no connection was open (e.g. before the first
        /// iteration started): the next iteration ends at once.
        var finishRequested = false
    }

    private struct Subscriber {
        let continuation: AsyncThrowingStream<Fix, any Error>.Continuation
        /// Waiting for gpsd's latest fix, accepted if no older than this.
        var latestNoOlderThan: Duration?
        /// The backlog at which the reader pauses for this consumer (nil: never).
        let backpressureLimit: Int?
        /// Fixes given to this consumer's queue and not yet taken.
        var waiting = 0

        var isBehind: Bool { backpressureLimit.map { waiting >= $0 } ?? false }
        var hasCaughtUp: Bool { backpressureLimit.map { waiting <= $0 / 2 } ?? true }
    }

    /// One reader thread and the serial processor that carries its events to subscribers.
    private final class Connection: Sendable {
        let reader: ReaderThread
        let processor: SerialProcessor<ReaderEvent>

        init(reader: ReaderThread, processor: SerialProcessor<ReaderEvent>) {
            self.reader = reader
            self.processor = processor
        }
    }

    /// A session of its own (not shared) for `source`.
    ///
    /// - Parameters:
    ///   - reconnectPolicy: `.never` (the default) throws connection errors to the
    ///     iterations; `.automatic` keeps retrying and reports each outage as a status.
    ///   - reportsSatellites: read satellite counts from SKY reports and pass them to
    ///     `statusHandler` as ``GPSDStatus/satellites(seen:used:)`` (otherwise SKY,
    ///     most of gpsd's bytes, is skipped unread).
    ///   - statusHandler: called, in order with the fixes, for connections and outages.
    public init(
        source: GPSDSource = .default, reconnectPolicy: ReconnectPolicy = .never, reportsSatellites: Bool = false,
        statusHandler: (@Sendable (GPSDStatus) -> Void)? = nil
    ) {
        self.source = source
        self.reconnectPolicy = reconnectPolicy
        self.reportsSatellites = reportsSatellites
        self.statusHandler = statusHandler
    }

    private static let registry = Mutex<[GPSDSource: GPSDSession]>([:])

    /// The process-wide session for `source`: one gpsd connection however many consumers.
    public static func shared(_ source: GPSDSource = .default) -> GPSDSession {
        registry.withLock { sessions in
            if let session = sessions[source] { return session }
            let session = GPSDSession(source: source)
            sessions[source] = session
            return session
        }
    }

    /// The live fixes, one per epoch, in order: `for try await fix in session.fixes()`.
    ///
    /// - Parameter bufferingPolicy: what this consumer's queue does when it falls
    ///   behind. The default, `.bounded(1024)`, never drops a fix: when 1024 wait,
    ///   loctrack stops reading from gpsd until this consumer catches up.
    /// - Parameter maximumAge: when set, the sequence starts with the fix gpsd
    ///   already has (asked with `?POLL`), if it is no older than this by gpsd's
    ///   own clock; a warm gpsd answers within milliseconds. Then live fixes follow.
    public func fixes(
        bufferingPolicy: FixBufferingPolicy = .default, startingWithLatestNoOlderThan maximumAge: Duration? = nil
    ) -> AsyncFixSequence {
        AsyncFixSequence(session: self, bufferingPolicy: bufferingPolicy, latestNoOlderThan: maximumAge)
    }

    /// Ends every iteration gracefully: fixes already read from gpsd (including
    /// an epoch still being assembled) are delivered, then the sequences finish
    /// without error and the connection closes. For SIGINT/SIGTERM handling.
    ///
    /// If no connection is open yet, the next iteration to start ends at once.
    public func finish() {
        let connection = state.withLock { state in
            if state.connection == nil { state.finishRequested = true }
            return state.connection
        }
        connection?.reader.stop(flushing: true)
        // A reader stuck in libgps's connect() cannot act on the stop: nothing was read
        // yet, so end the iterations now; the thread ends when connect() returns.
        if let connection, connection.reader.isConnecting {
            connection.processor.submit(.ended)
        }
    }

    func subscribe(
        bufferingPolicy: FixBufferingPolicy, latestNoOlderThan maximumAge: Duration?
    ) -> (AsyncThrowingStream<Fix, any Error>, consumed: @Sendable () -> Void) {
        let (stream, continuation) = AsyncThrowingStream<Fix, any Error>.makeStream(
            bufferingPolicy: bufferingPolicy.streamPolicy)
        let (id, startFailure, alreadyFinished) = state.withLock { state -> (UInt64, LocTrackError?, Bool) in
            let id = state.nextSubscriberID
            if state.finishRequested && state.connection == nil {
                state.finishRequested = false
                return (id, nil, true)
            }
            state.nextSubscriberID += 1
            state.subscribers[id] = Subscriber(
                continuation: continuation, latestNoOlderThan: maximumAge,
                backpressureLimit: bufferingPolicy.backpressureLimit)
            if let connection = state.connection {
                if maximumAge != nil { connection.reader.requestPoll() }
                return (id, nil, false)
            }
            do throws(LocTrackError) {
                state.generation += 1
                state.readerPaused = false
                state.connection = try makeConnection(generation: state.generation, poll: maximumAge != nil)
                return (id, nil, false)
            } catch {
                state.subscribers[id] = nil
                return (id, error, false)
            }
        }
        let consumed: @Sendable () -> Void = { [weak self] in self?.consumed(by: id) }
        if alreadyFinished {
            continuation.finish()
            return (stream, consumed)
        }
        if let startFailure {
            continuation.finish(throwing: startFailure)
            return (stream, consumed)
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return (stream, consumed)
    }

    /// A consumer took a fix; when the one that paused the reader has caught up, read again.
    private func consumed(by id: UInt64) {
        let resume = state.withLock { state -> ReaderThread? in
            guard var subscriber = state.subscribers[id] else { return nil }
            subscriber.waiting = max(0, subscriber.waiting - 1)
            state.subscribers[id] = subscriber
            guard state.readerPaused, state.subscribers.values.allSatisfy(\.hasCaughtUp) else { return nil }
            state.readerPaused = false
            return state.connection?.reader
        }
        resume?.resumeReading()
    }

    /// Asked by the reader thread before each read: whether a consumer is too far behind.
    private func consumersAreBehind() -> Bool {
        state.withLock { state in
            if state.readerPaused { return true }
            guard state.subscribers.values.contains(where: \.isBehind) else { return false }
            state.readerPaused = true
            return true
        }
    }

    private func makeConnection(generation: UInt64, poll: Bool) throws(LocTrackError) -> Connection {
        let processor = SerialProcessor<ReaderEvent> { [weak self] event in
            self?.deliver(event, from: generation)
        }
        let reader = try ReaderThread(
            source: source, reconnectPolicy: reconnectPolicy, reportsSatellites: reportsSatellites,
            consumersAreBehind: { [weak self] in self?.consumersAreBehind() ?? false }
        ) { event in
            processor.submit(event)
        }
        let connection = Connection(reader: reader, processor: processor)
        if poll { reader.requestPoll() }
        try reader.start()
        watchConnect(of: connection)
        return connection
    }

    /// How long libgps may take to connect before the consumers hear about it.
    static let connectTimeout: Duration = .seconds(3)

    /// libgps connects with a blocking connect() and no timeout: a host that drops
    /// packets would hold the reader for minutes. After ``connectTimeout`` the
    /// consumers are told: without reconnection they get `.cannotConnect`; with it, a
    /// `.waiting` status (the reader keeps trying as soon as connect() gives up).
    private func watchConnect(of connection: Connection) {
        let policy = reconnectPolicy
        let source = self.source
        Task { [weak connection] in
            try? await Task.sleep(for: Self.connectTimeout)
            guard let connection, connection.reader.isConnecting else { return }
            let error = LocTrackError(
                .cannotConnect, source: source, reason: "no answer within \(Int(Self.connectTimeout.seconds)) s")
            connection.processor.submit(policy.enabled ? .status(.waiting(error, retryIn: .zero)) : .failed(error))
        }
    }

    private func unsubscribe(_ id: UInt64) {
        let idle = state.withLock { state -> Connection? in
            guard state.subscribers.removeValue(forKey: id) != nil, state.subscribers.isEmpty else { return nil }
            defer { state.connection = nil }
            return state.connection
        }
        guard let idle else { return }
        idle.reader.stop(flushing: false)
        idle.processor.cancel()
    }

    /// Runs on the serial processor's worker, one event at a time, in order.
    private func deliver(_ event: ReaderEvent, from generation: UInt64) {
        switch event {
        case .fix(let fix):
            let subscribers = state.withLock { state -> [(UInt64, AsyncThrowingStream<Fix, any Error>.Continuation)] in
                guard state.generation == generation else { return [] }
                for id in state.subscribers.keys { state.subscribers[id]?.waiting += 1 }
                return state.subscribers.map { ($0.key, $0.value.continuation) }
            }
            for (id, subscriber) in subscribers {
                if case .enqueued = subscriber.yield(fix) { continue }
                consumed(by: id)  // dropped by the consumer's policy, or the consumer is gone
            }
            deliveredFixes.add(1, ordering: .sequentiallyConsistent)
        case .polled(let fixes, let gpsdTime):
            let waiting = state.withLock { state -> [(AsyncThrowingStream<Fix, any Error>.Continuation, Duration)] in
                guard state.generation == generation else { return [] }
                var waiting: [(AsyncThrowingStream<Fix, any Error>.Continuation, Duration)] = []
                for (id, subscriber) in state.subscribers {
                    guard let maximumAge = subscriber.latestNoOlderThan else { continue }
                    waiting.append((subscriber.continuation, maximumAge))
                    state.subscribers[id]?.latestNoOlderThan = nil
                }
                return waiting
            }
            for (subscriber, maximumAge) in waiting {
                for fix in fixes.sorted(by: { $0.time < $1.time })
                where Self.isFresh(fix, gpsdTime: gpsdTime, maximumAge: maximumAge) {
                    subscriber.yield(fix)
                }
            }
        case .status(let status):
            let isCurrent = state.withLock { $0.generation == generation }
            if isCurrent { statusHandler?(status) }
        case .failed, .ended:
            let subscribers = state.withLock { state -> [AsyncThrowingStream<Fix, any Error>.Continuation] in
                guard state.generation == generation, state.connection != nil else { return [] }
                defer {
                    state.subscribers = [:]
                    state.connection = nil
                }
                return state.subscribers.values.map(\.continuation)
            }
            for subscriber in subscribers {
                if case .failed(let error) = event {
                    subscriber.finish(throwing: error)
                } else {
                    subscriber.finish()
                }
            }
        }
    }

    /// A polled fix is fresh when gpsd's clock says it is at most `maximumAge` old
    /// (and not more than a second in the future: a receiver with a wrong date is not fresh).
    static func isFresh(_ fix: Fix, gpsdTime: Timestamp?, maximumAge: Duration) -> Bool {
        guard let gpsdTime else { return false }
        let age = gpsdTime.seconds(since: fix.time)
        return age >= -1 && age <= maximumAge.seconds
    }
}
