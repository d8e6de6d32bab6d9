public import LocTrack

/// One position of a track: from a live ``Fix`` or from a track file (loctrack's JSON lines,
/// CSV, GPX, or GPX from other programs, which may have no speed and no error estimate).
/// The one point the distance machines, `loctrack trips` and the page's recorded track
/// (`serve --track`) all read files into; the page keeps its own packed copy of each.
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
    /// Metres above mean sea level (gpsd's `altMSL`, OwnTracks' `alt`); nil when none.
    public var altitudeMSL: Double?
    /// Metres above the WGS 84 ellipsoid (gpsd's `altHAE`); nil when none.
    public var altitudeHAE: Double?
    /// Whether the record says it was a 3D fix (gpsd's mode 3); false when it says 2D or
    /// nothing. The page's GPX writes it as `<fix>`.
    public var isThreeD: Bool
    /// Whether the record says it was a differential fix (gpsd's status 2).
    public var isDGPS: Bool

    public init(
        time: Timestamp, latitude: Double, longitude: Double, speed: Double? = nil, horizontalError: Double? = nil,
        device: String? = nil, altitudeMSL: Double? = nil, altitudeHAE: Double? = nil, isThreeD: Bool = false,
        isDGPS: Bool = false
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.speed = speed
        self.horizontalError = horizontalError
        self.device = device
        self.altitudeMSL = altitudeMSL
        self.altitudeHAE = altitudeHAE
        self.isThreeD = isThreeD
        self.isDGPS = isDGPS
    }

    public init(_ fix: Fix) {
        self.init(
            time: fix.time, latitude: fix.latitude, longitude: fix.longitude, speed: fix.speed,
            horizontalError: fix.horizontalError, device: fix.device, altitudeMSL: fix.altitudeMSL,
            altitudeHAE: fix.altitudeHAE, isThreeD: fix.mode == .threeD, isDGPS: fix.status == .dgps)
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
    /// Seconds spent in confirmed motion so far (counted as the metres are: a stop's slow
    /// positions leave them out), from the odometer's start.
    public var movingSeconds: Double
    /// Whether the receiver's speeds agree with its positions as far as the odometer knows
    /// (no window found a unit error), so that a maximum speed may come from them.
    public var speedsAgree: Bool

    public init(metres: Double, moving: Bool, departure: TripEndpoint? = nil, movingSeconds: Double = 0, speedsAgree: Bool = true) {
        self.metres = metres
        self.moving = moving
        self.departure = departure
        self.movingSeconds = movingSeconds
        self.speedsAgree = speedsAgree
    }
}

/// Where and when a trip started or ended: its first or last moving position.
public struct TripEndpoint: Sendable, Equatable {
    public var time: Timestamp
    public var latitude: Double
    public var longitude: Double
    /// The odometer at this position, in metres.
    public var odometer: Double
    /// The odometer's ``OdometerReading/movingSeconds`` at this position.
    public var movingSeconds: Double

    public init(time: Timestamp, latitude: Double, longitude: Double, odometer: Double, movingSeconds: Double = 0) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.odometer = odometer
        self.movingSeconds = movingSeconds
    }
}

/// A finished trip, as `loctrack trips` prints it and a `TRIP` end event carries it.
public struct TripSummary: Sendable, Equatable {
    public var start: TripEndpoint
    public var end: TripEndpoint
    /// Metres travelled (the odometer's, end minus start).
    public var distance: Double
    /// The largest speed during the trip that its neighbouring fixes bear out, m/s, and at
    /// least ``averageSpeed`` (a trip that averaged 10 m/s went that fast at some point,
    /// whatever sparse fixes caught).
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
    /// Seconds of it in confirmed motion: the duration less the stops shorter than a trip's end.
    public var movingTime: Double { max(0, min(duration, end.movingSeconds - start.movingSeconds)) }
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
