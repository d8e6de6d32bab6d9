package import LocTrack

/// Everything a monitor keeps between runs: its conditions and what it decided about them.
///
/// This is what the state file holds (``MonitorStore``), and what `add` and `remove` from
/// another process change. The running monitor merges it with its own state
/// (``GeofenceEngine/merge(_:)``): the file decides which conditions exist, the running
/// monitor decides their states.
package struct MonitorSnapshot: Sendable, Hashable {
    package var name: String
    /// The serial the next added condition gets; serials are never reused, so a condition
    /// removed and added again under the same identifier is a new condition.
    package var nextSerial: Int
    /// The receiver time of the newest fix used: older fixes are ignored, also after a restart.
    package var lastFixTime: Timestamp?
    /// In the order they were added.
    package var conditions: [MonitoredCondition]
    /// The number the next event gets (``GeofenceDelivery``); never reused.
    package var nextEventSequence: Int
    /// Events saved with the decisions that caused them and not yet confirmed delivered,
    /// oldest first (``GeofenceDelivery``).
    package var outbox: [GeofenceDelivery]

    package init(
        name: String, nextSerial: Int = 1, lastFixTime: Timestamp? = nil, conditions: [MonitoredCondition] = [],
        nextEventSequence: Int = 1, outbox: [GeofenceDelivery] = []
    ) {
        self.name = name
        self.nextSerial = nextSerial
        self.lastFixTime = lastFixTime
        self.conditions = conditions
        self.nextEventSequence = nextEventSequence
        self.outbox = outbox
    }

    /// Adds `condition`, replacing one with the same identifier (which then starts over).
    /// - Parameter time: when it was added (the wall clock: OwnTracks names regions by it).
    /// - Parameter title: its display name (OwnTracks' `desc`), if it has one.
    package mutating func add(
        _ condition: GeofenceCondition, identifier: String, title: String? = nil, assuming state: GeofenceState,
        at time: Timestamp? = nil
    ) {
        let added = MonitoredCondition(
            identifier: identifier, serial: nextSerial, condition: condition, state: state, added: time, title: title)
        nextSerial += 1
        if let index = conditions.firstIndex(where: { $0.identifier == identifier }) {
            conditions[index] = added
        } else {
            conditions.append(added)
        }
    }

    /// Removes the condition `identifier`.
    /// - Throws: ``GeofenceError/unknownIdentifier(_:monitor:)`` when there is none.
    package mutating func remove(_ identifier: String) throws(GeofenceError) {
        guard let index = conditions.firstIndex(where: { $0.identifier == identifier }) else {
            throw .unknownIdentifier(identifier, monitor: name)
        }
        conditions.remove(at: index)
    }
}

/// One condition as the monitor keeps it.
package struct MonitoredCondition: Sendable, Hashable {
    package var identifier: String
    /// Given when added (``MonitorSnapshot/nextSerial``).
    package var serial: Int
    package var condition: GeofenceCondition
    package var state: GeofenceState
    package var lastEvent: GeofenceEvent?
    /// With `--dwell`: the state the fixes point to, and since when (receiver time).
    package var pending: PendingChange?
    /// An `accuracyLimited` event was reported and no fix could decide since.
    package var accuracyLimitReported: Bool
    /// When it was added (wall clock), if known.
    package var added: Timestamp?
    /// Its display name (`monitor add --title`, GeoJSON `properties.name`), if it has one.
    package var title: String?

    package init(
        identifier: String, serial: Int, condition: GeofenceCondition, state: GeofenceState,
        lastEvent: GeofenceEvent? = nil, pending: PendingChange? = nil, accuracyLimitReported: Bool = false,
        added: Timestamp? = nil, title: String? = nil
    ) {
        self.added = added
        self.title = title
        self.identifier = identifier
        self.serial = serial
        self.condition = condition
        self.state = state
        self.lastEvent = lastEvent
        self.pending = pending
        self.accuracyLimitReported = accuracyLimitReported
    }

    /// The record ``GeofenceMonitor/record(for:)`` returns.
    var record: GeofenceRecord {
        GeofenceRecord(
            identifier: identifier, condition: condition, state: state, lastEvent: lastEvent, added: added, title: title)
    }
}

/// A state change that has to hold for the dwell time before it is reported.
package struct PendingChange: Sendable, Hashable {
    package var state: GeofenceState
    /// Receiver time of the first fix that pointed to ``state``.
    package var since: Timestamp

    package init(state: GeofenceState, since: Timestamp) {
        self.state = state
        self.since = since
    }
}
