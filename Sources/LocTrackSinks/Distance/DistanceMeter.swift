package import LocTrack
package import LocTrackDistance
import LocTrackFormats
import LocTrackSystem

/// The odometer and, with `--trips`, the trip detector, over every fix a command reads:
/// also the fixes its filters (`--interval`, `--min-distance`) or a sink's thinning leave
/// out, so that the distance is the one travelled, not the one printed. Pure but for one
/// line (`say`): what is kept across restarts goes through ``OdometerKeeper``, which the
/// meter tells each reading.
package struct DistanceMeter {
    private var odometer: Odometer
    private var trips: TripDetector?
    private let keeper: OdometerKeeper?
    /// Where the one line goes that says the receiver's speeds disagree with its positions.
    private let say: @Sendable (String) -> Void
    private var saidSpeedDisagreement = false
    /// The newest fix's time: what ``finish()`` keeps its reading at.
    private var latest: Timestamp?

    /// - Parameters:
    ///   - startingAt: the odometer's reading when the command starts (the kept one).
    ///   - detectsTrips: whether trips are decided (`--trips`).
    ///   - keeper: where each reading goes to be kept (nil: nowhere).
    ///   - say: where the one line goes that says the receiver's speeds disagree with its
    ///     positions (a unit error: distances then come from the positions); stderr.
    package init(
        startingAt metres: Double, detectsTrips: Bool, keeper: OdometerKeeper?,
        say: @escaping @Sendable (String) -> Void = { printError($0) }
    ) {
        odometer = Odometer(startingAt: metres)
        trips = detectsTrips ? TripDetector() : nil
        self.keeper = keeper
        self.say = say
    }

    /// Measures one fix: the odometer after it and the trips it decided.
    package mutating func measure(_ fix: Fix) -> (reading: OdometerReading, trips: [TripEvent]) {
        let point = TrackPoint(fix)
        let reading = odometer.add(point)
        if !saidSpeedDisagreement, let ratio = odometer.speedDisagreement {
            saidSpeedDisagreement = true
            say("odometer: " + TripLines.speedDisagreement(ratio))
        }
        keeper?.keep(reading, at: fix.time)
        latest = fix.time
        return (reading, trips?.add(point, reading: reading) ?? [])
    }

    /// The command ends (its input ended, a signal, `--count`): what the odometer still held
    /// for its speed check's first verdict counts, and is kept (``Odometer/finish()``).
    package mutating func finish() {
        guard let latest else { return }
        keeper?.keep(odometer.finish(), at: latest)
    }

    /// The odometer as it stands.
    package var reading: OdometerReading { odometer.reading }
}

/// Builds each ``GPSDBatch`` a streaming command hands its sinks: the events that go on,
/// and, when it measures distance, each one's odometer and the trips decided in between.
/// Kept between batches, so that its storage is reused.
package struct GPSDBatchBuilder {
    private var events: [GPSDEvent] = []
    private var odometer: [OdometerReading] = []
    private var trips: [TripMark] = []
    private var meter: DistanceMeter?

    package init(meter: DistanceMeter?) {
        self.meter = meter
    }

    package var isEmpty: Bool { events.isEmpty && trips.isEmpty }

    /// Measures a fix that does not go on (a filter left it out): it still counts for the
    /// odometer and the trips.
    package mutating func measure(_ fix: Fix) {
        guard meter != nil else { return }
        markTrips(meter!.measure(fix).trips)
    }

    /// Adds an event that goes on (a fix is measured first).
    package mutating func append(_ event: GPSDEvent) {
        guard meter != nil else {
            events.append(event)
            return
        }
        if case .fix(let fix) = event {
            let (reading, decided) = meter!.measure(fix)
            events.append(event)
            odometer.append(reading)
            markTrips(decided)
        } else {
            events.append(event)
            odometer.append(meter!.reading)
        }
    }

    /// The command ends: the meter's last metres count (``DistanceMeter/finish()``).
    package mutating func finishMeasuring() {
        meter?.finish()
    }

    /// Trips decided by the last event appended (before any: they come first).
    private mutating func markTrips(_ decided: [TripEvent]) {
        for trip in decided { trips.append(TripMark(afterEvent: events.count - 1, event: trip)) }
    }

    /// The batch so far; the builder starts afresh.
    package mutating func take() -> GPSDBatch {
        defer {
            events.removeAll(keepingCapacity: true)
            odometer.removeAll(keepingCapacity: true)
            trips.removeAll(keepingCapacity: true)
        }
        return GPSDBatch(events, odometer: odometer, trips: trips)
    }
}
