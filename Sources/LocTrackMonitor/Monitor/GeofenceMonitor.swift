import Synchronization
public import LocTrack
import LocTrackSystem

/// Named, persistent geofences decided from gpsd's fixes: CoreLocation's `CLMonitor`, for gpsd.
///
/// A monitor holds conditions (circles and polygons) under identifiers and reports
/// ``GeofenceEvent``s as each becomes satisfied or unsatisfied. It decides from each
/// fix's own error estimate with a hysteresis margin, so a receiver standing on a
/// boundary does not flap (docs/monitor.md gives the rules). Its conditions and states
/// live in a state file (``MonitorStore``), shared with other processes that add and
/// remove conditions, and restored after a restart or a crash.
///
/// ```swift
/// let monitor = try GeofenceMonitor(named: "car")
/// try await monitor.add(.circle(center: home, radius: 50), identifier: "home")
/// for try await event in try await monitor.events(from: GPSDSession()) {
///     print(event.identifier, event.state)
/// }
/// ```
public actor GeofenceMonitor {
    /// The monitor's name: its state file is `<name>.monitor.json`.
    public nonisolated let name: String
    private let store: MonitorStore
    private var engine: GeofenceEngine
    /// The engine revision the state file holds.
    private var persistedRevision: Int
    /// The state file as last read or written: another process changed it when it differs.
    private var knownSignature: FileSignature?
    private var lastSignatureCheck: Int64?
    /// `unmonitored` events from merges (already in the outbox), handed out with the next
    /// batch's events.
    private var mergedDeliveries: [GeofenceDelivery] = []
    /// Events put into the outbox since the last save: the next journal line's `events`.
    private var unsavedDeliveries: [GeofenceDelivery] = []
    /// The highest event number handed to the caller, and the highest confirmed delivered
    /// (in memory, and in the state file).
    private var handedOut = 0
    private var confirmedThrough = 0
    private var savedConfirmation = 0
    private var runLock: RunLock?
    /// Bytes of decisions appended since the file was last written whole, and how many may
    /// be before the next save rewrites it whole (the journal then as large as the rest).
    private var journalBytes = 0
    private var journalLimit = GeofenceMonitor.smallestJournalLimit

    static let smallestJournalLimit = 64 * 1024

    /// How often (monotonic time) a running monitor looks for `add` and `remove` from elsewhere.
    static let stateFileCheckMilliseconds: Int64 = 1000

    /// State files open in this process (by path): at most one monitor each.
    private static let openPaths = Mutex<Set<String>>([])

    /// Opens the monitor `name`, reading its state file.
    /// - Parameters:
    ///   - directory: where its state file is; default `$XDG_STATE_HOME/loctrack`
    ///     (`~/.local/state/loctrack`).
    ///   - dwell: how long (receiver time) a new state must hold before it is reported.
    /// - Throws: ``GeofenceError`` for an invalid name, a monitor already open in this
    ///   process, or a state file that cannot be read (a corrupt one is left untouched).
    public init(named name: String, directory: String? = nil, dwell: Duration = .zero) throws(GeofenceError) {
        let store = try MonitorStore(name: name, directory: directory)
        let claimed = Self.openPaths.withLock { $0.insert(store.statePath).inserted }
        guard claimed else { throw .alreadyOpen(name) }
        let snapshot: MonitorSnapshot
        do {
            snapshot = try store.read()
        } catch {
            _ = Self.openPaths.withLock { $0.remove(store.statePath) }
            throw error
        }
        self.name = name
        self.store = store
        engine = GeofenceEngine(snapshot: snapshot, rules: GeofenceRules(dwellSeconds: dwell.seconds))
        persistedRevision = engine.revision
        knownSignature = store.signature()
        journalLimit = max(Self.smallestJournalLimit, Int(knownSignature?.size ?? 0))
    }

    deinit {
        _ = Self.openPaths.withLock { $0.remove(store.statePath) }
    }

    // MARK: Conditions

    /// Monitors `condition` as `identifier`, replacing a condition with that identifier.
    /// - Parameter state: the state to assume until a fix decides (default unknown: the
    ///   first decision is then an event).
    /// - Parameter title: its display name (OwnTracks' `desc`); nil: the identifier is shown.
    public func add(
        _ condition: GeofenceCondition, identifier: String, title: String? = nil, assuming state: GeofenceState = .unknown
    ) throws(GeofenceError) {
        try add([(identifier, condition, title)], assuming: state)
    }

    /// Adds several conditions in one write of the state file: all of them, or none.
    public func add(_ conditions: [(identifier: String, condition: GeofenceCondition)], assuming state: GeofenceState = .unknown)
        throws(GeofenceError)
    {
        try add(conditions.map { ($0.identifier, $0.condition, nil) }, assuming: state)
    }

    /// Adds several conditions, each with its display name (nil: none), in one write of the
    /// state file: all of them, or none.
    /// - Throws: ``GeofenceError/invalidTitle(_:)`` for an empty title.
    public func add(
        _ conditions: [(identifier: String, condition: GeofenceCondition, title: String?)],
        assuming state: GeofenceState = .unknown
    ) throws(GeofenceError) {
        for (identifier, _, title) in conditions {
            try Self.validate(identifier: identifier)
            if let title { try Self.validate(title: title) }
        }
        let assumed: GeofenceState = state == .unmonitored ? .unknown : state
        let now = Timestamp(seconds: wallClockSeconds())
        try synchronize { snapshot throws(GeofenceError) in
            for (identifier, condition, title) in conditions {
                snapshot.add(condition, identifier: identifier, title: title, assuming: assumed, at: now)
            }
        }
    }

    /// Stops monitoring `identifier`; its last event is `unmonitored`.
    /// - Throws: ``GeofenceError/unknownIdentifier(_:monitor:)`` when there is no such condition.
    public func remove(_ identifier: String) throws(GeofenceError) {
        try synchronize { snapshot throws(GeofenceError) in try snapshot.remove(identifier) }
    }

    /// The condition `identifier`, its state and its last event.
    public func record(for identifier: String) -> GeofenceRecord? {
        engine.condition(identifier)?.record
    }

    /// The identifiers of the monitored conditions, in the order they were added.
    public var identifiers: [String] { engine.snapshot.conditions.map(\.identifier) }

    /// Every condition's record, in the order of ``identifiers``.
    public var records: [GeofenceRecord] { identifiers.compactMap { record(for: $0) } }

    // MARK: Fixes

    /// Decides the conditions from a batch of a session's events (statuses decide nothing)
    /// and saves what changed, with the events, before returning the events.
    ///
    /// Also picks up conditions added or removed by other processes (at most once a
    /// second), whose `unmonitored` events come first.
    ///
    /// Each call confirms the delivery of the events the previous call returned (the
    /// caller asking for more has dealt with them): after a crash, the next run's
    /// ``undelivered()`` holds at most the last call's events. A caller that delivers
    /// elsewhere and must know they arrived uses ``decide(_:)`` and
    /// ``confirmDelivery(through:)`` instead.
    public func process(_ batch: some Sequence<GPSDEvent>) throws(GeofenceError) -> [GeofenceEvent] {
        confirmDelivery(through: handedOut)
        return try decide(batch).map(\.event)
    }

    /// Decides the conditions from one fix (see ``process(_:)-(some Sequence<GPSDEvent>)``).
    public func process(_ fix: Fix) throws(GeofenceError) -> [GeofenceEvent] {
        try process(CollectionOfOne(GPSDEvent.fix(fix)))
    }

    /// Decides the conditions from a batch of a session's events and saves the decisions
    /// together with the events they cause (``GeofenceDelivery``) before returning them;
    /// they stay in the outbox until ``confirmDelivery(through:)``.
    ///
    /// An empty batch decides nothing but still picks up what other processes added or
    /// removed: call it about once a second while gpsd is silent.
    public func decide(_ batch: some Sequence<GPSDEvent>) throws(GeofenceError) -> [GeofenceDelivery] {
        try refreshIfChangedElsewhere()
        var deliveries = mergedDeliveries
        mergedDeliveries = []
        var events: [GeofenceEvent] = []
        for case .fix(let fix) in batch { events += engine.process(fix) }
        let decided = engine.enqueue(events)
        unsavedDeliveries += decided
        deliveries += decided
        if engine.revision != persistedRevision || !unsavedDeliveries.isEmpty { try persist() }
        deliveries += mergedDeliveries
        mergedDeliveries = []
        if let last = deliveries.last { handedOut = max(handedOut, last.sequence) }
        return deliveries
    }

    /// The events a previous run saved but did not see confirmed delivered (it was killed,
    /// the power went, a sink failed), oldest first: deliver these before any new event.
    /// Each is handed out once per run.
    public func undelivered() -> [GeofenceDelivery] {
        let waiting = engine.snapshot.outbox.filter { $0.sequence > handedOut }
        if let last = waiting.last { handedOut = last.sequence }
        return waiting
    }

    /// Says that the events up to `sequence` reached every destination: they leave the
    /// outbox. Kept in memory and saved with the next save (``saveConfirmations()``
    /// saves at once), so a crash before that only repeats them.
    public func confirmDelivery(through sequence: Int) {
        guard sequence > confirmedThrough else { return }
        confirmedThrough = sequence
        engine.confirmDeliveries(through: sequence)
    }

    /// Saves the confirmations not saved yet (at the end of a run).
    public func saveConfirmations() throws(GeofenceError) {
        guard confirmedThrough > savedConfirmation else { return }
        try persist()
    }

    /// The monitor's events from `session`, until the session ends or fails, beginning
    /// with those a previous run did not deliver (``undelivered()``).
    ///
    /// Holds the monitor's run lock, so that one process at a time decides its
    /// conditions; another process may still add and remove them.
    /// - Throws: ``GeofenceError/alreadyRunning(_:path:)`` when another process runs it.
    public func events(from session: GPSDSession) throws(GeofenceError) -> AsyncGeofenceEventSequence {
        try holdRunLock()
        return AsyncGeofenceEventSequence(monitor: self, session: session)
    }

    /// Takes the monitor's run lock (see ``events(from:)``), for programs that feed
    /// ``process(_:)-(some Sequence<GPSDEvent>)`` themselves.
    public func holdRunLock() throws(GeofenceError) {
        if runLock == nil { runLock = try store.holdRunLock() }
    }

    // MARK: The state file

    private func refreshIfChangedElsewhere() throws(GeofenceError) {
        let now = Monotonic.milliseconds
        if let last = lastSignatureCheck, now - last < Self.stateFileCheckMilliseconds { return }
        lastSignatureCheck = now
        if store.signature() != knownSignature { try synchronize() }
    }

    /// Saves the engine's decisions: appended to the state file as one journal line when
    /// nobody else has written it since this monitor last did; written whole when the
    /// journal has grown as large as the rest; merged (``synchronize(_:)``) when another
    /// process changed the file.
    private func persist() throws(GeofenceError) {
        let changes = engine.changedConditions
        let delivered = confirmedThrough > savedConfirmation ? confirmedThrough : nil
        let anythingToAppend = !changes.isEmpty || !unsavedDeliveries.isEmpty || delivered != nil
        if anythingToAppend, journalBytes < journalLimit,
           let appended = try store.append(
               changes, events: unsavedDeliveries, delivered: delivered, lastFixTime: engine.snapshot.lastFixTime,
               ifStill: knownSignature) {
            journalBytes += appended
        } else if try store.replace(with: engine.snapshot, ifStill: knownSignature) {
            wroteWhole()
        } else {
            try synchronize()
            return
        }
        engine.markPersisted()
        persistedRevision = engine.revision
        knownSignature = store.signature()
        unsavedDeliveries = []
        savedConfirmation = confirmedThrough
    }

    private func wroteWhole() {
        journalBytes = 0
        journalLimit = max(Self.smallestJournalLimit, Int(store.signature()?.size ?? 0))
    }

    /// Under the state file's lock: apply `change` to the file's snapshot, take its
    /// conditions into the engine, and write the engine's states back.
    private func synchronize(_ change: ((inout MonitorSnapshot) throws(GeofenceError) -> Void)? = nil)
        throws(GeofenceError)
    {
        var merged: [GeofenceDelivery] = []
        var engine = self.engine
        try store.update { snapshot throws(GeofenceError) in
            try change?(&snapshot)
            // The removals' events go into the outbox of the same write.
            merged = engine.enqueue(engine.merge(snapshot))
            snapshot = engine.snapshot
        }
        self.engine = engine
        self.engine.markPersisted()
        mergedDeliveries += merged
        // The whole write holds the outbox as it is in memory: new events, confirmations.
        unsavedDeliveries = []
        savedConfirmation = confirmedThrough
        persistedRevision = engine.revision
        knownSignature = store.signature()
        wroteWhole()
    }

    private static func validate(identifier: String) throws(GeofenceError) {
        guard !identifier.isEmpty, identifier.utf8.count <= 200,
              !identifier.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidIdentifier(identifier) }
    }

    /// A display name: what an identifier may be (it is shown where the identifier was).
    private static func validate(title: String) throws(GeofenceError) {
        guard !title.isEmpty, title.utf8.count <= 200,
              !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidTitle(title) }
    }
}
