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

    /// Prepared geometry, one per condition, in ``MonitorSnapshot/conditions`` order.
    private var regions: [PreparedRegion] = []
    private var grid = SpatialGrid(reaches: [])
    /// Condition slots by ascending size: those a given error circle is too large for are a prefix.
    private var slotsBySize: [Int32] = []
    /// Slots that need looking at whatever the fix's position: state not `unsatisfied`,
    /// a pending change, or an accuracy limit to lift.
    private var attention = Set<Int32>()

    package init(snapshot: MonitorSnapshot, rules: GeofenceRules = GeofenceRules()) {
        self.snapshot = snapshot
        self.rules = rules
        rebuildIndex()
    }

    /// The monitor's name.
    package var name: String { snapshot.name }

    // MARK: Fixes

    /// Decides every condition the fix can decide, in the order the conditions were added.
    /// A fix older than the newest one used is ignored.
    package mutating func process(_ fix: Fix) -> [GeofenceEvent] {
        if let last = snapshot.lastFixTime, fix.time < last { return [] }
        snapshot.lastFixTime = fix.time
        let point = fix.point
        var slots = attention
        for slot in grid.candidates(near: point) { slots.insert(slot) }
        for slot in grid.everywhere { slots.insert(slot) }
        for slot in slotsTooSmall(for: fix.horizontalError) { slots.insert(slot) }
        var events: [GeofenceEvent] = []
        for slot in slots.sorted() {
            if let event = decide(Int(slot), with: fix, at: point) { events.append(event) }
        }
        return events
    }

    private func slotsTooSmall(for error: Double?) -> ArraySlice<Int32> {
        guard let error, error.isFinite, error >= 0 else { return slotsBySize[...] }
        // Binary search for the first condition at least as large as the error circle.
        var low = 0
        var high = slotsBySize.count
        while low < high {
            let middle = (low + high) / 2
            if regions[Int(slotsBySize[middle])].geometry.size < error { low = middle + 1 } else { high = middle }
        }
        return slotsBySize[..<low]
    }

    private mutating func decide(_ slot: Int, with fix: Fix, at point: GeoPoint) -> GeofenceEvent? {
        let region = regions[slot]
        var condition = snapshot.conditions[slot]
        defer {
            if condition != snapshot.conditions[slot] {
                snapshot.conditions[slot] = condition
                revision += 1
                updateAttention(slot)
            }
        }
        let verdict = GeofenceRules.verdict(error: fix.horizontalError, size: region.geometry.size) {
            region.geometry.signedDistance(from: point)
        }
        let decided: GeofenceState
        switch verdict {
        case .accuracyLimited:
            guard !condition.accuracyLimitReported else { return nil }
            condition.accuracyLimitReported = true
            let event = GeofenceEvent(
                monitor: name, identifier: condition.identifier, state: condition.state, fix: fix, accuracyLimited: true)
            condition.lastEvent = event
            return event
        case .undecided:
            liftAccuracyLimit(of: &condition, error: fix.horizontalError, size: region.geometry.size)
            return nil
        case .inside:
            decided = .satisfied
        case .outside:
            decided = .unsatisfied
        }
        liftAccuracyLimit(of: &condition, error: fix.horizontalError, size: region.geometry.size)
        guard decided != condition.state else {
            condition.pending = nil
            return nil
        }
        if rules.dwellSeconds > 0 {
            if condition.pending?.state != decided { condition.pending = PendingChange(state: decided, since: fix.time) }
            guard let pending = condition.pending, fix.time.seconds(since: pending.since) >= rules.dwellSeconds else {
                return nil
            }
        }
        condition.pending = nil
        condition.state = decided
        let event = GeofenceEvent(monitor: name, identifier: condition.identifier, state: decided, fix: fix)
        condition.lastEvent = event
        return event
    }

    private func liftAccuracyLimit(of condition: inout MonitoredCondition, error: Double?, size: Double) {
        if condition.accuracyLimitReported, GeofenceRules.liftsAccuracyLimit(error: error, size: size) {
            condition.accuracyLimitReported = false
        }
    }

    private mutating func updateAttention(_ slot: Int) {
        let condition = snapshot.conditions[slot]
        if condition.state != .unsatisfied || condition.pending != nil || condition.accuracyLimitReported {
            attention.insert(Int32(slot))
        } else {
            attention.remove(Int32(slot))
        }
    }

    // MARK: Conditions

    /// Takes the conditions from `stored` (the state file): new ones join with their stored
    /// state, removed ones leave with an `unmonitored` event, and the ones this engine
    /// already has (same identifier and serial) keep the state decided here.
    package mutating func merge(_ stored: MonitorSnapshot) -> [GeofenceEvent] {
        let current = Dictionary(snapshot.conditions.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        var merged = stored
        merged.lastFixTime = [snapshot.lastFixTime, stored.lastFixTime].compactMap { $0 }.max()
        for index in merged.conditions.indices {
            let incoming = merged.conditions[index]
            if let known = current[incoming.identifier], known.serial == incoming.serial {
                merged.conditions[index] = known
            }
        }
        let kept = Set(merged.conditions.map { ConditionKey(identifier: $0.identifier, serial: $0.serial) })
        let events = snapshot.conditions
            .filter { !kept.contains(ConditionKey(identifier: $0.identifier, serial: $0.serial)) }
            .map { GeofenceEvent(monitor: name, identifier: $0.identifier, state: .unmonitored, fix: nil) }
        let changed = merged != snapshot
        snapshot = merged
        if changed {
            revision += 1
            rebuildIndex()
        }
        return events
    }

    private struct ConditionKey: Hashable {
        let identifier: String
        let serial: Int
    }

    private mutating func rebuildIndex() {
        regions = snapshot.conditions.map { PreparedRegion(RegionGeometry($0.condition)) }
        grid = SpatialGrid(reaches: regions.map(\.reach))
        slotsBySize = regions.indices.map(Int32.init).sorted { regions[Int($0)].geometry.size < regions[Int($1)].geometry.size }
        attention = []
        for slot in snapshot.conditions.indices { updateAttention(slot) }
    }
}

/// A condition's geometry with the box outside which a fix that can decide it says `unsatisfied`.
private struct PreparedRegion {
    let geometry: RegionGeometry
    /// The bounding box grown by the margin plus the size (the largest error that decides).
    let reach: BoundingBox

    init(_ geometry: RegionGeometry) {
        self.geometry = geometry
        reach = geometry.boundingBox.expanded(by: GeofenceRules.margin(forSize: geometry.size) + geometry.size)
    }
}
