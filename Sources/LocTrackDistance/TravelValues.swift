public import LocTrack

/// One position as the distance machines see it: from a live ``Fix`` or from a track file
/// (loctrack's JSON lines, CSV, GPX, or GPX from other programs, which may have no speed
/// and no error estimate).
public struct TrackPoint: Sendable, Equatable {
    /// The receiver's time of the position.
    public var time: Timestamp
    public var latitude: Double
    public var longitude: Double
    /// The receiver's speed over ground in m/s; nil when it reported none.
    public var speed: Double?
    /// The receiver's horizontal error estimate (gpsd's `eph`, 95 %) in metres; nil when none.
    public var horizontalError: Double?
    /// The device that reported it (gpsd's `device`), if known.
    public var device: String?

    public init(
        time: Timestamp, latitude: Double, longitude: Double, speed: Double? = nil, horizontalError: Double? = nil,
        device: String? = nil
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.speed = speed
        self.horizontalError = horizontalError
        self.device = device
    }

    public init(_ fix: Fix) {
        self.init(
            time: fix.time, latitude: fix.latitude, longitude: fix.longitude, speed: fix.speed,
            horizontalError: fix.horizontalError, device: fix.device)
    }
}

/// What the odometer says after a position: the distance travelled so far and whether the
/// tracker is in its confirmed moving state.
public struct OdometerReading: Sendable, Equatable {
    /// Metres travelled, monotonic (a restart resumes from the persisted value).
    public var metres: Double
    /// Whether the position was taken in the confirmed moving state (Traccar's `motion`).
    public var moving: Bool
    /// While moving: where and when this motion began (its first moving position, with the
    /// odometer before it), which is earlier than the position that confirmed it; a trip
    /// that this motion starts begins here. Nil while stationary.
    public var departure: TripEndpoint?

    public init(metres: Double, moving: Bool, departure: TripEndpoint? = nil) {
        self.metres = metres
        self.moving = moving
        self.departure = departure
    }
}

/// Where and when a trip started or ended: its first or last moving position.
public struct TripEndpoint: Sendable, Equatable {
    public var time: Timestamp
    public var latitude: Double
    public var longitude: Double
    /// The odometer at this position, in metres.
    public var odometer: Double

    public init(time: Timestamp, latitude: Double, longitude: Double, odometer: Double) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.odometer = odometer
    }
}

/// A finished trip, as `loctrack trips` prints it and a `TRIP` end event carries it.
public struct TripSummary: Sendable, Equatable {
    public var start: TripEndpoint
    public var end: TripEndpoint
    /// Metres travelled (the odometer's, end minus start).
    public var distance: Double
    /// The receiver's largest speed during the trip, m/s (0 when none was reported).
    public var maxSpeed: Double
    /// The device, when the points named one.
    public var device: String?

    public init(start: TripEndpoint, end: TripEndpoint, distance: Double, maxSpeed: Double, device: String? = nil) {
        self.start = start
        self.end = end
        self.distance = distance
        self.maxSpeed = maxSpeed
        self.device = device
    }

    /// Seconds from the first to the last moving position.
    public var duration: Double { end.time.seconds(since: start.time) }
    /// ``distance`` over ``duration``, m/s (0 for a trip of no duration).
    public var averageSpeed: Double { duration > 0 ? distance / duration : 0 }
}

/// What the trip detector decided after a position: a trip started (once the rules
/// confirmed it: its endpoint is its first moving position, earlier than the decision), or
/// ended.
public enum TripEvent: Sendable, Equatable {
    case started(TripEndpoint, device: String?)
    case ended(TripSummary)
}
