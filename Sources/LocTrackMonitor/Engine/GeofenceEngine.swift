package import LocTrack
import LocTrackSystem

/// Decides a monitor's conditions from fixes: a pure state machine, no I/O, no clock.
///
/// ``process(_:)`` takes fixes in order and returns the events they cause;
/// ``merge(_:)`` takes the state file's conditions (added and removed by other
/// processes) and returns the `unmonitored` events of those removed. The monitor
/// runs it behind its actor and persists ``snapshot`` after every change.
package struct GeofenceEngine: Sendable {
    package let rules: GeofenceRules
    private(set) package var snapshot: MonitorSnapshot
    /// Counts changes that must reach the state file (states, pending changes, limits).
    private(set) package var revision = 0
    /// The conditions whose decisions changed since ``markPersisted()``: what a running
    /// monitor appends to its state file.
    private(set) package var changedSlots = Set<Int>()

    /// Geometry, one per condition, in ``MonitorSnapshot/conditions`` order.
    private var regions: [RegionGeometry] = []
    /// The same conditions' boxes, sizes and margins: plain values, so that filtering the
    /// grid's candidates copies nothing that needs reference counting.
    private var filters: [RegionFilter] = []
    private var grid = SpatialGrid(reaches: [])
    /// Condition slots by ascending size: those a given error circle is too large for are a prefix.
    private var slotsBySize: [Int32] = []
    /// Slots that need looking at whatever the fix's position: state not `unsatisfied`,
    /// a pending change, or an accuracy limit to lift.
    private var attention = Set<Int32>()
    /// The same, by slot: a test that costs no hashing.
    private var needsAttention: [Bool] = []
    /// The candidates of the fix being processed (kept to reuse its storage).
    private var scratch: [Int32] = []
    private var slotsByIdentifier: [String: Int] = [:]

    package init(snapshot: MonitorSnapshot, rules: GeofenceRules = GeofenceRules()) {
        self.snapshot = snapshot
        self.rules = rules
        rebuildIndex()
    }

    /// The monitor's name.
    package var name: String { snapshot.name }

    /// The condition `identifier`, if the engine holds it.
    package func condition(_ identifier: String) -> MonitoredCondition? {
        slotsByIdentifier[identifier].map { snapshot.conditions[$0] }
    }

    /// The conditions in ``changedSlots``, in slot order.
    package var changedConditions: [MonitoredCondition] {
        changedSlots.sorted().map { snapshot.conditions[$0] }
    }

    /// Puts `events` into the snapshot's outbox (``MonitorSnapshot/enqueue(_:)``); saved
    /// with the next save, which the decisions that caused them make due anyway.
    package mutating func enqueue(_ events: [GeofenceEvent]) -> [GeofenceDelivery] {
        snapshot.enqueue(events)
    }

    /// Takes confirmed deliveries out of the outbox (``MonitorSnapshot/confirmDeliveries(through:)``).
    /// Not a change that needs a save of its own: the next save carries it.
    package mutating func confirmDeliveries(through sequence: Int) {
        snapshot.confirmDeliveries(through: sequence)
    }

    /// Says that the state file now holds every decision made so far.
    package mutating func markPersisted() {
        changedSlots.removeAll(keepingCapacity: true)
    }

    // MARK: Fixes

    /// Decides every condition the fix can decide, in the order the conditions were added.
    /// A fix older than the newest one used is ignored.
    package mutating func process(_ fix: Fix) -> [GeofenceEvent] {
        if let last = snapshot.lastFixTime, fix.time < last { return [] }
        snapshot.lastFixTime = fix.time
        let point = fix.point
        // The conditions this fix can change (see SpatialGrid), in slot order, each once.
        // A grid candidate that needs no attention is skipped at once when the fix is
        // outside its box grown by the error and the margin: it stays unsatisfied.
        var slots: [Int32] = []
        swap(&slots, &scratch)  // reuses the last fix's storage
        slots.removeAll(keepingCapacity: true)
        slots += attention
        let error = fix.horizontalError
        for candidates in [grid.candidates(near: point), grid.everywhere] {
            for slot in candidates where !needsAttention[Int(slot)] && filters[Int(slot)].mayDecideOtherThanOutside(point, error: error) {
                slots.append(slot)
            }
        }
        slots += slotsTooSmall(for: error)
        slots.sort()
        var events: [GeofenceEvent] = []
        var previous: Int32 = -1
        for slot in slots where slot != previous {
            previous = slot
            if let event = decide(Int(slot), with: fix, at: point) { events.append(event) }
        }
        swap(&slots, &scratch)
        return events
    }

    private func slotsTooSmall(for error: Double?) -> ArraySlice<Int32> {
        guard let error, error.isFinite, error >= 0 else { return slotsBySize[...] }
        // Binary search for the first condition at least as large as the error circle.
        var low = 0
        var high = slotsBySize.count
        while low < high {
            let middle = (low + high) / 2
            if filters[Int(slotsBySize[middle])].size < error { low = middle + 1 } else { high = middle }
        }
        return slotsBySize[..<low]
    }

    private mutating func decide(_ slot: Int, with fix: Fix, at point: GeoPoint) -> GeofenceEvent? {
        // No local copies of the slot's region or condition: this runs for every candidate
        // of every fix, and a copy costs a retain and a release of each of their arrays.
        let monitor = name
        let size = filters[slot].size
        let verdict = GeofenceRules.verdict(error: fix.horizontalError, size: size) {
            regions[slot].signedDistance(from: point)
        }
        let decided: GeofenceState
        switch verdict {
        case .accuracyLimited:
            guard !snapshot.conditions[slot].accuracyLimitReported else { return nil }
            return change(slot) { condition in
                condition.accuracyLimitReported = true
                let event = GeofenceEvent(
                    monitor: monitor, identifier: condition.identifier, state: condition.state,
                    previousState: condition.state, fix: fix, accuracyLimited: true)
                condition.lastEvent = event
                return event
            }
        case .undecided:
            liftAccuracyLimit(slot, error: fix.horizontalError, size: size)
            return nil
        case .inside:
            decided = .satisfied
        case .outside:
            decided = .unsatisfied
        }
        liftAccuracyLimit(slot, error: fix.horizontalError, size: size)
        guard decided != snapshot.conditions[slot].state else {
            if snapshot.conditions[slot].pending != nil { change(slot) { $0.pending = nil } }
            return nil
        }
        if rules.dwellSeconds > 0 {
            if snapshot.conditions[slot].pending?.state != decided {
                change(slot) { $0.pending = PendingChange(state: decided, since: fix.time) }
            }
            guard let pending = snapshot.conditions[slot].pending,
                  fix.time.seconds(since: pending.since) >= rules.dwellSeconds else { return nil }
        }
        return change(slot) { condition in
            let event = GeofenceEvent(
                monitor: monitor, identifier: condition.identifier, state: decided, previousState: condition.state, fix: fix)
            condition.pending = nil
            condition.state = decided
            condition.lastEvent = event
            return event
        }
    }

    /// Applies `body` to the condition in `slot` and records that it changed.
    @discardableResult
    private mutating func change<Result>(_ slot: Int, _ body: (inout MonitoredCondition) -> Result) -> Result {
        let result = body(&snapshot.conditions[slot])
        revision += 1
        changedSlots.insert(slot)
        updateAttention(slot)
        return result
    }

    private mutating func liftAccuracyLimit(_ slot: Int, error: Double?, size: Double) {
        if snapshot.conditions[slot].accuracyLimitReported, GeofenceRules.liftsAccuracyLimit(error: error, size: size) {
            change(slot) { $0.accuracyLimitReported = false }
        }
    }

    private mutating func updateAttention(_ slot: Int) {
        let condition = snapshot.conditions[slot]
        let needed = condition.state != .unsatisfied || condition.pending != nil || condition.accuracyLimitReported
        guard needed != needsAttention[slot] else { return }
        needsAttention[slot] = needed
        if needed { attention.insert(Int32(slot)) } else { attention.remove(Int32(slot)) }
    }

    // MARK: Conditions

    /// Takes the conditions from `stored` (the state file): new ones join with their stored
    /// state, removed ones leave with an `unmonitored` event, and the ones this engine
    /// already has (same identifier and serial) keep the state decided here.
    package mutating func merge(_ stored: MonitorSnapshot) -> [GeofenceEvent] {
        let current = Dictionary(snapshot.conditions.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        var merged = stored
        merged.lastFixTime = [snapshot.lastFixTime, stored.lastFixTime].compactMap { $0 }.max()
        // The outbox is the running monitor's alone (other processes only carry it over),
        // and it may hold confirmations the file does not have yet.
        merged.outbox = snapshot.outbox
        merged.nextEventSequence = max(snapshot.nextEventSequence, stored.nextEventSequence)
        for index in merged.conditions.indices {
            let incoming = merged.conditions[index]
            if let known = current[incoming.identifier], known.serial == incoming.serial {
                merged.conditions[index] = known
            }
        }
        let kept = Set(merged.conditions.map { ConditionKey(identifier: $0.identifier, serial: $0.serial) })
        let events = snapshot.conditions
            .filter { !kept.contains(ConditionKey(identifier: $0.identifier, serial: $0.serial)) }
            .map { GeofenceEvent(monitor: name, identifier: $0.identifier, state: .unmonitored, previousState: $0.state, fix: nil) }
        let changed = merged != snapshot
        snapshot = merged
        if changed {
            revision += 1
            rebuildIndex()
        }
        // The state file is written whole after a merge: nothing is left to append.
        changedSlots.removeAll()
        return events
    }

    private struct ConditionKey: Hashable {
        let identifier: String
        let serial: Int
    }

    private mutating func rebuildIndex() {
        regions = snapshot.conditions.map { RegionGeometry($0.condition) }
        filters = regions.map(RegionFilter.init)
        grid = SpatialGrid(reaches: filters.map(\.reach))
        slotsBySize = filters.indices.map(Int32.init).sorted { filters[Int($0)].size < filters[Int($1)].size }
        attention = []
        needsAttention = Array(repeating: false, count: snapshot.conditions.count)
        for slot in snapshot.conditions.indices { updateAttention(slot) }
        slotsByIdentifier = Dictionary(
            snapshot.conditions.indices.map { (snapshot.conditions[$0].identifier, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// What the engine knows of a condition before it measures: its size and margin, and
/// the boxes outside which a fix can only say `unsatisfied`. Plain values only.
private struct RegionFilter {
    let size: Double
    let margin: Double
    let box: BoundingBox
    /// The bounding box grown by the margin plus the size (the largest error that decides):
    /// what the grid files the condition under.
    let reach: BoundingBox
    /// Degrees of longitude per metre at the box's edge nearest a pole (the widest), or
    /// 0 where that is undefined (a box reaching a pole).
    private let longitudeDegreesPerMetre: Double

    init(_ geometry: RegionGeometry) {
        size = geometry.size
        margin = GeofenceRules.margin(forSize: geometry.size)
        box = geometry.boundingBox
        reach = box.expanded(by: margin + size)
        let cosine = cos(max(abs(box.minLatitude), abs(box.maxLatitude)) * Double.pi / 180)
        longitudeDegreesPerMetre = cosine > 1e-6 ? 1 / (Earth.metresPerDegree * cosine) : 0
    }

    /// False when a fix at `point` with this error estimate can only decide `unsatisfied`:
    /// it is outside the bounding box grown by the error and the margin, so at least that
    /// far from the region. True when it must be evaluated (no usable error, or near).
    /// (``BoundingBox/expanded(by:)`` without its cosine: this runs for every candidate.)
    func mayDecideOtherThanOutside(_ point: GeoPoint, error: Double?) -> Bool {
        guard let error, error.isFinite, error >= 0, error <= size, longitudeDegreesPerMetre > 0 else { return true }
        let distance = error + margin
        let latitudeDelta = distance / Earth.metresPerDegree
        let longitudeDelta = distance * longitudeDegreesPerMetre
        guard box.minLongitude - longitudeDelta >= -180, box.maxLongitude + longitudeDelta <= 180 else { return true }
        return point.latitude >= box.minLatitude - latitudeDelta && point.latitude <= box.maxLatitude + latitudeDelta
            && point.longitude >= box.minLongitude - longitudeDelta && point.longitude <= box.maxLongitude + longitudeDelta
    }
}
