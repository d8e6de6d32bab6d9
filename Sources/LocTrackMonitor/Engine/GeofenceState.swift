public import LocTrack

/// Where the receiver is with respect to a condition, as far as the fixes can tell.
public enum GeofenceState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nothing decided yet: no fix was good enough since the condition was added.
    case unknown
    /// The fix's whole error circle lay inside the region.
    case satisfied
    /// The fix's error circle lay outside the region by the hysteresis margin.
    case unsatisfied
    /// The condition was removed; the last event of its identifier.
    case unmonitored

    public var description: String { rawValue }
}

/// What a monitor reports: a condition's new state, or that the fixes cannot decide it.
public struct GeofenceEvent: Sendable, Hashable {
    /// The monitor's name.
    public let monitor: String
    /// The condition's identifier.
    public let identifier: String
    /// The condition's state after this event.
    public let state: GeofenceState
    /// The condition's state before this event (``state`` again for an ``accuracyLimited``
    /// event), so that a consumer knows a `leave` from a first decision without keeping
    /// a copy of every state: OwnTracks' transitions, Home Assistant's presence.
    public let previousState: GeofenceState
    /// The fix that decided it (for ``accuracyLimited`` events, the fix that could not);
    /// `nil` for ``GeofenceState/unmonitored``. A fix restored from the state file carries
    /// its time, position and `eph` only.
    public let fix: Fix?
    /// True when the fixes are too poor to decide this condition (no `eph`, or an error
    /// circle larger than the region); ``state`` is then the unchanged last state.
    /// Reported once, until a fix good enough to decide comes again.
    public let accuracyLimited: Bool

    /// The receiver's time of ``fix``.
    public var time: Timestamp? { fix?.time }

    public init(
        monitor: String, identifier: String, state: GeofenceState, previousState: GeofenceState = .unknown, fix: Fix?,
        accuracyLimited: Bool = false
    ) {
        self.monitor = monitor
        self.identifier = identifier
        self.state = state
        self.previousState = previousState
        self.fix = fix
        self.accuracyLimited = accuracyLimited
    }
}

/// A condition a monitor holds, with its state and its last event.
public struct GeofenceRecord: Sendable, Hashable {
    public let identifier: String
    public let condition: GeofenceCondition
    /// The state last decided (or assumed when added).
    public let state: GeofenceState
    /// The last event reported for this condition, if any.
    public let lastEvent: GeofenceEvent?
    /// When the condition was added (wall clock, whole seconds), if known.
    public let added: Timestamp?
    /// Its display name, if it was given one (`monitor add --title`, GeoJSON `properties.name`).
    public let title: String?

    /// The name to show for it: its ``title``, else its identifier.
    public var displayName: String { title ?? identifier }
}
