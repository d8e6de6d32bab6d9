import LocTrack

/// Trips and stops from positions and the odometer's readings of them: a pure state
/// machine with Traccar's rules (``TripRules``), combined with the odometer's moving state.
///
/// - A trip **starts** once a position is 200 m from the last stop's position, provided the
///   odometer has seen motion since the stop (a jump of the fix is not a trip).
/// - It **ends** when no position in the last 180 s is 200 m from the current one and the
///   odometer says the tracker is stationary (a walk around a block, which may stay within
///   200 m for three minutes, is still one trip); or when the data has a gap of over an hour.
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
    private var previous: (time: Timestamp, latitude: Double, longitude: Double)?
    /// The odometer at the previous position, to see it advance.
    private var previousMetres: Double?
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
        let speed: Double?
        switch clock.judge(point.time) {
        case .skip:
            return []
        case .restart:
            events += endTrip()
            beginAgain(at: point)
            speed = point.usableSpeed
        case .later(let elapsed):
            if elapsed > TripRules.gapSeconds {
                events += endTrip()
                beginAgain(at: point)
            }
            speed = point.usableSpeed ?? chordSpeed(to: point, elapsed: elapsed)
        }
        let advanced = reading.moving && reading.metres > (previousMetres ?? reading.metres)
        recent.append(.init(time: point.time, latitude: point.latitude, longitude: point.longitude, speed: speed))
        previous = (point.time, point.latitude, point.longitude)
        previousMetres = reading.metres
        if trip != nil {
            events += follow(point, reading: reading, speed: speed, advanced: advanced)
        } else {
            events += watch(point, reading: reading, speed: speed, advanced: advanced)
        }
        return events
    }

    /// The input ended: an open trip ends at its last moving position. The detector starts
    /// afresh after it.
    public mutating func finish() -> [TripEvent] {
        let events = endTrip()
        self = TripDetector()
        return events
    }

    /// In a trip: note how far it went, and end it when the rules say it stopped.
    private mutating func follow(_ point: TrackPoint, reading: OdometerReading, speed: Double?, advanced: Bool) -> [TripEvent] {
        guard var open = trip else { return [] }
        open.note(speed: speed, at: point, odometer: reading.metres, advanced: advanced)
        trip = open
        guard !reading.moving,
              recent.allWithin(TripRules.tripDistance, ofLatitude: point.latitude, longitude: point.longitude)
        else { return [] }
        return endTrip()
    }

    /// Between trips: follow the motion since the stop, and start a trip once it is 200 m away.
    private mutating func watch(_ point: TrackPoint, reading: OdometerReading, speed: Double?, advanced: Bool) -> [TripEvent] {
        if reading.moving {
            if candidate == nil {
                let start: TripEndpoint
                if let departure = reading.departure, departure.time >= since ?? departure.time {
                    start = departure
                } else {
                    start = TripEndpoint(time: point.time, latitude: point.latitude, longitude: point.longitude, odometer: reading.metres)
                }
                candidate = Motion(start: start, fastest: recent.fastest(since: start.time), device: point.device)
            }
            candidate?.note(speed: speed, at: point, odometer: reading.metres, advanced: advanced)
        } else if let motion = candidate {
            if point.time.seconds(since: motion.end.time) >= TripRules.stopSeconds {
                candidate = nil  // a motion that paused this long was a stop of its own
            } else {
                candidate?.note(speed: speed, at: point, odometer: reading.metres, advanced: false)
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
        stopPosition = (point.latitude, point.longitude)
        since = point.time
    }

    /// The chord speed from the previous position, for a maximum speed where the receiver
    /// reported none; nil for a jump.
    private func chordSpeed(to point: TrackPoint, elapsed: Double) -> Double? {
        guard let previous, elapsed > 0 else { return nil }
        let speed = GreatCircle.distance(previous.latitude, previous.longitude, point.latitude, point.longitude) / elapsed
        return speed <= OdometerRules.maximumPlausibleSpeed ? speed : nil
    }
}

extension TripDetector {
    /// A motion that is, or may become, a trip.
    struct Motion: Sendable {
        let start: TripEndpoint
        let device: String?
        /// The last position at which the odometer advanced.
        private(set) var end: TripEndpoint
        /// The fastest speed so far, and as of ``end``.
        private var fastest: Double?
        private var fastestAtEnd: Double?

        init(start: TripEndpoint, fastest: Double?, device: String?) {
            self.start = start
            self.end = start
            self.fastest = fastest
            self.fastestAtEnd = fastest
            self.device = device
        }

        mutating func note(speed: Double?, at point: TrackPoint, odometer: Double, advanced: Bool) {
            fastest = RecentPositions.faster(fastest, speed)
            guard advanced else { return }
            end = TripEndpoint(time: point.time, latitude: point.latitude, longitude: point.longitude, odometer: odometer)
            fastestAtEnd = fastest
        }

        var summary: TripSummary {
            TripSummary(start: start, end: end, distance: max(0, end.odometer - start.odometer), maxSpeed: fastestAtEnd ?? 0,
                        device: device)
        }
    }
}
