import LocTrack

/// A monitor event waiting in the monitor's outbox until its delivery is confirmed.
///
/// The monitor saves each decision together with the events it causes, in one write of
/// its state file (a transactional outbox): a crash after the save cannot lose an
/// event, because the event is in the file. Delivery happens after the save; the
/// consumer confirms what has reached its destinations
/// (``GeofenceMonitor/confirmDelivery(through:)``), and whatever is not confirmed is
/// delivered again by the next run (``GeofenceMonitor/undelivered``): at least once, in
/// order, with repeats only around a crash.
public struct GeofenceDelivery: Sendable, Hashable {
    /// The event's number in its monitor's outbox: increasing, never reused.
    public let sequence: Int
    public let event: GeofenceEvent

    public init(sequence: Int, event: GeofenceEvent) {
        self.sequence = sequence
        self.event = event
    }
}

extension MonitorSnapshot {
    /// Puts `events` into the outbox, numbered on from ``nextEventSequence``.
    /// - Returns: the deliveries, in the order of `events`.
    package mutating func enqueue(_ events: [GeofenceEvent]) -> [GeofenceDelivery] {
        let deliveries = events.enumerated().map { GeofenceDelivery(sequence: nextEventSequence + $0.offset, event: $0.element) }
        nextEventSequence += events.count
        outbox += deliveries
        return deliveries
    }

    /// Takes the deliveries up to `sequence` out of the outbox: they reached their destinations.
    package mutating func confirmDeliveries(through sequence: Int) {
        guard let first = outbox.first, first.sequence <= sequence else { return }
        outbox.removeAll { $0.sequence <= sequence }
    }
}
