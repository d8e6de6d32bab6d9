import LocTrack

/// Trips and stops from positions and the odometer's readings of them: a pure state
/// machine with Traccar's rules (``TripRules``), combined with the odometer's moving state.
///
/// - A trip **starts** once a position is 200 m from the last stop's position, provided the
///   odometer has seen motion since the stop (a jump of the fix is not a trip).
/// - It **ends** when no position in the last 180 s is 200 m from the current one and the
///   odometer says the tracker is stationary (a walk around a block, which may stay within
///   200 m for three minutes, is still one trip); or when the data has a gap of over an hour,
///   or of three minutes whose ends are within 200 m (a logger's auto-pause: a stop).
/// - Its start and end are its **first and last moving positions**, not the positions at
///   which the rules decided: the start is where the motion that led to the trip began
///   (``OdometerReading/departure``), the end the last position at which the odometer
///   advanced. So `.started` carries a position some seconds old, and `.ended` one about
///   three minutes old.
///
/// Positions are taken in receiver time order as the odometer takes them
/// (``ReceiverClock``): feed it the odometer's reading of each position.
public struct TripDetector: Sendable {
    private var clock = ReceiverClock()
    private var recent = RecentPositions()
    /// The last two positions taken since the detector began (again), newest last: a
    /// position's maximum speed is judged once the next one shows it was no glitch.
    private var previous: NeighbourPoint?
    private var beforePrevious: NeighbourPoint?
    /// The odometer at the previous position, to see it advance.
    private var previousReading: OdometerReading?
    /// Where the tracker last stopped (nil before the first position).
    private var stopPosition: (latitude: Double, longitude: Double)?
    /// Motions since then start no earlier than this (the first position after a gap or a
    /// clock step back).
    private var since: Timestamp?
    /// The motion since the stop that a trip would start with.
    private var candidate: Motion?
    /// The open trip.
    private var trip: Motion?

    public init() {}

    /// Takes the next position with the odometer's reading of it.
    /// - Returns: the trip that started (at its first moving position) or ended (at its
    ///   last), if the position decided one; both when a gap ends one trip and the next
    ///   position starts another.
    public mutating func add(_ point: TrackPoint, reading: OdometerReading) -> [TripEvent] {
        guard point.hasUsablePosition else { return [] }
        var events: [TripEvent] = []
        var current = NeighbourPoint(point)
        switch clock.judge(point.time) {
        case .skip:
            return []
        case .restart:
            events += endTrip()
            beginAgain(at: point)
        case .later(let elapsed):
            // The chord from the previous position, measured once: for the pause rule, and as
            // the speed out of that position for its maximum.
            if let previous { current.chordFromPrevious = previous.distance(to: current) }
            let pause = elapsed >= TripRules.pauseSeconds && (current.chordFromPrevious ?? 0) <= TripRules.tripDistance
            if elapsed > TripRules.gapSeconds || pause {
                events += endTrip()
                beginAgain(at: point)
                current.chordFromPrevious = nil
            } else if let previous {
                judgeSpeed(of: previous, before: beforePrevious, after: current)
            }
        }
        let advanced = reading.moving
            && (reading.movingSeconds > (previousReading?.movingSeconds ?? reading.movingSeconds)
                || reading.metres > (previousReading?.metres ?? reading.metres))
        recent.append(.init(time: point.time, latitude: point.latitude, longitude: point.longitude))
        beforePrevious = previous
        previous = current
        previousReading = reading
        if trip != nil {
            events += follow(point, reading: reading, advanced: advanced)
        } else {
            events += watch(point, reading: reading, advanced: advanced)
        }
        return events
    }

    /// The input ended: an open trip ends at its last moving position, with the metres the
    /// odometer's own ``Odometer/finish()`` still added (`reading`). The detector starts
    /// afresh after it.
    public mutating func finish(_ reading: OdometerReading? = nil) -> [TripEvent] {
        if let reading { trip?.settle(reading) }
        let events = endTrip()
        self = TripDetector()
        return events
    }

    /// The speed `point` had, as far as its neighbours bear it out, noted for the maximum.
    private mutating func judgeSpeed(of point: NeighbourPoint, before: NeighbourPoint?, after: NeighbourPoint) {
        let speed = point.consistentSpeed(before: before, after: after)
        guard speed.bySpeed != nil || speed.byChord != nil else { return }
        recent.noteNewest(speed: speed)
        candidate?.note(speed: speed, at: point.time)
        trip?.note(speed: speed, at: point.time)
    }

    /// In a trip: note how far it went, and end it when the rules say it stopped.
    private mutating func follow(_ point: TrackPoint, reading: OdometerReading, advanced: Bool) -> [TripEvent] {
        guard var open = trip else { return [] }
        open.note(point, reading: reading, advanced: advanced)
        trip = open
        guard !reading.moving,
              recent.allWithin(TripRules.tripDistance, ofLatitude: point.latitude, longitude: point.longitude)
        else { return [] }
        return endTrip()
    }

    /// Between trips: follow the motion since the stop, and start a trip once it is 200 m away.
    private mutating func watch(_ point: TrackPoint, reading: OdometerReading, advanced: Bool) -> [TripEvent] {
        if reading.moving {
            if candidate == nil {
                let start: TripEndpoint
                if let departure = reading.departure, departure.time >= since ?? departure.time {
                    start = departure
                } else {
                    start = TripEndpoint(time: point.time, latitude: point.latitude, longitude: point.longitude, odometer: reading.metres,
                                         movingSeconds: reading.movingSeconds)
                }
                candidate = Motion(start: start, fastest: recent.fastest(since: start.time), device: point.device)
            }
            candidate?.note(point, reading: reading, advanced: advanced)
        } else if let motion = candidate {
            if point.time.seconds(since: motion.end.time) >= TripRules.stopSeconds {
                candidate = nil  // a motion that paused this long was a stop of its own
            } else {
                candidate?.note(point, reading: reading, advanced: false)
            }
        }
        guard let motion = candidate, let stop = stopPosition,
              GreatCircle.distance(stop.latitude, stop.longitude, point.latitude, point.longitude) >= TripRules.tripDistance
        else { return [] }
        trip = motion
        candidate = nil
        return [.started(motion.start, device: motion.device)]
    }

    /// Ends the open trip, if any, at its last moving position, which becomes the stop's.
    private mutating func endTrip() -> [TripEvent] {
        guard let open = trip else { return [] }
        trip = nil
        candidate = nil
        stopPosition = (open.end.latitude, open.end.longitude)
        return [.ended(open.summary)]
    }

    /// Nothing before `point` counts: the first position, after a gap, or after the clock
    /// stepped back. The tracker is taken to stand where it is.
    private mutating func beginAgain(at point: TrackPoint) {
        recent.removeAll()
        candidate = nil
        previous = nil
        beforePrevious = nil
        stopPosition = (point.latitude, point.longitude)
        since = point.time
    }
}
