public import LocTrack
public import LocTrackDistance
public import LocTrackFormats
public import LocTrackProcess
public import LocTrackMonitor

/// A destination of loctrack's events: stdout, a track file, an MQTT broker, Home Assistant,
/// or one of a library user's own. Every destination is this one kind of thing, and one
/// ``SinkFanOut`` hands each batch to all of them (swift-log's multiplex handler is the model).
///
/// A sink owns what makes its output: its encoder (the format it writes), its filter (a
/// broker's accuracy limit), its buffer and its thread, if any. It is handed every batch,
/// whatever kind, and writes what concerns it: a line sink ignores the monitor's regions,
/// Home Assistant ignores the event lines it has no use for. What it did not write counts
/// as settled.
public protocol Sink: AnyObject, Sendable {
    /// Takes one batch, in order, and never waits: what does not fit is dropped by the
    /// sink's own documented policy (the oldest first), never by making the caller wait.
    /// The fan-out calls this when the sink has company, so that no sink waits for another.
    /// - Returns: false once nothing more can go out (stdout closed, a login refused).
    func take(_ batch: SinkBatch) -> Bool
    /// Takes one batch when the sink is alone: it may first wait, bounded, for room (stdout
    /// waits up to a second for a reader that paused), so that a brief pause loses nothing.
    /// The default never waits.
    func takeWaitingForRoom(_ batch: SinkBatch) async -> Bool
    /// How many of the events taken (``SinkBatch/eventCount``, counted across batches) are
    /// settled: written to stdout, synced by the track writer, in the broker's spool, or
    /// nothing this sink writes. What `monitor run` confirms delivered.
    var settledEvents: Int { get }
    /// Writes what it holds (a document's end, a broker's backlog as far as it goes), then
    /// says how it ended. Takes nothing afterwards.
    /// - Parameter promptly: a signal is ending the command: wait only briefly for what is
    ///   slow to go out (a broker's acknowledgements), keeping it for the next start.
    func finish(promptly: Bool) async -> SinkOutcome
}

extension Sink {
    public func takeWaitingForRoom(_ batch: SinkBatch) async -> Bool { take(batch) }
}

/// How a ``Sink`` ended.
public enum SinkOutcome: Equatable, Sendable {
    /// Everything went out, or the reader went away (a closed pipe is a normal end).
    case done
    /// The command must exit with `code`, after printing `message` on stderr (empty: the
    /// sink's own process said why already).
    case failed(ExitCode, message: String)
}

/// What a ``Sink`` takes: one batch of one kind, as it came.
public enum SinkBatch: Sendable {
    /// gpsd's events in order: the fixes the command accepted, statuses, SKY (when the
    /// session reports satellites); with the odometer and trips when the command measures
    /// distance.
    case gpsd(GPSDBatch)
    /// A monitor's events, each with what its OwnTracks transition needs.
    case monitor([MonitorEventItem])
    /// The monitor's regions after a decision: which exist, and whether the tracker is in each.
    case regions([String: RegionPresence])

    /// The events this batch counts for ``Sink/settledEvents``: every gpsd and monitor
    /// event; a regions snapshot is a state, not an event, and counts none.
    public var eventCount: Int {
        switch self {
        case .gpsd(let batch): batch.events.count
        case .monitor(let events): events.count
        case .regions: 0
        }
    }
}

/// One monitor event as the sinks get it.
public struct MonitorEventItem: Sendable {
    public let event: GeofenceEvent
    /// What an OwnTracks `transition` needs beyond the event (nil when the format is not OwnTracks).
    public let ownTracks: OwnTracksTransitionContext?

    public init(event: GeofenceEvent, ownTracks: OwnTracksTransitionContext? = nil) {
        self.event = event
        self.ownTracks = ownTracks
    }
}

/// A region as Home Assistant shows it: its name, and whether the tracker is inside.
public struct RegionPresence: Equatable, Sendable {
    public var name: String
    public var inside: Bool

    public init(name: String, inside: Bool) {
        self.name = name
        self.inside = inside
    }
}

/// gpsd's events as the sinks get them, with what the command's ``DistanceMeter`` made of
/// them when it measures distance (`--odometer`, `--trips`, a Traccar sink): the odometer
/// after each event, and the trips that started or ended. One value, so that a sink that
/// writes a fix's odometer on its line or a trip between two fixes needs no second stream
/// to match against the first.
public struct GPSDBatch: Sendable {
    public var events: [GPSDEvent]
    /// Parallel to ``events`` when the command measures distance (after a status or SKY, the
    /// reading as it stood); empty otherwise.
    public var odometer: [OdometerReading]
    /// Trip starts and ends, in order, each decided by the event at ``TripMark/afterEvent``.
    public var trips: [TripMark]

    public init(_ events: [GPSDEvent], odometer: [OdometerReading] = [], trips: [TripMark] = []) {
        self.events = events
        self.odometer = odometer
        self.trips = trips
    }

    /// The odometer after the event at `index`, when the command measures distance.
    public func odometer(at index: Int) -> OdometerReading? {
        odometer.indices.contains(index) ? odometer[index] : nil
    }
}

/// A trip event and where it falls among its batch's events.
public struct TripMark: Sendable, Equatable {
    /// The index in ``GPSDBatch/events`` of the fix after which the trip was decided.
    public var afterEvent: Int
    public var event: TripEvent

    public init(afterEvent: Int, event: TripEvent) {
        self.afterEvent = afterEvent
        self.event = event
    }
}
