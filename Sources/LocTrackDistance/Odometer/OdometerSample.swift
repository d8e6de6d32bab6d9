import LocTrack

/// A position as the odometer keeps it: checked, with its error circle worked out.
struct OdometerSample: Sendable {
    let time: Timestamp
    let latitude: Double
    let longitude: Double
    /// The receiver's speed (m/s); nil when it reported none or an unusable one. A single
    /// glitch is replaced (``filterSpeed(after:elapsed:)``).
    private(set) var receiverSpeed: Double?
    /// The speed as the receiver reported it, glitch or not: the next fix is judged against
    /// it, so that a sustained change (a unit error from the start, a hard acceleration) is
    /// no glitch.
    let reportedSpeed: Double?
    /// The error circle's radius in metres (``OdometerRules/radius(_:)``).
    let radius: Double

    /// Nil for a position that cannot be measured (non-finite or out of range).
    init?(_ point: TrackPoint) {
        guard point.hasUsablePosition else { return nil }
        time = point.time
        latitude = point.latitude
        longitude = point.longitude
        receiverSpeed = point.usableSpeed
        reportedSpeed = receiverSpeed
        radius = OdometerRules.radius(point.horizontalError)
    }

    func distance(to other: OdometerSample) -> Double {
        GreatCircle.distance(latitude, longitude, other.latitude, other.longitude)
    }

    /// How far apart two positions of a receiver that did not move may be: each is within
    /// its own error circle of the true position, so the two circles' radii added.
    func separation(from other: OdometerSample) -> Double { radius + other.radius }

    /// The larger of the two error circles: the slack a single step is allowed beyond what
    /// the speeds explain (its error changes less than two independent fixes' do).
    func largerRadius(_ other: OdometerSample) -> Double { max(radius, other.radius) }

    /// Replaces a speed that is a glitch beside `previous`, `chord` metres and `elapsed`
    /// seconds before (``SpeedCheck/filtered(_:after:chord:elapsed:)``).
    mutating func filterSpeed(after previous: OdometerSample, chord: Double, elapsed: Double) {
        guard let speed = receiverSpeed else { return }
        receiverSpeed = SpeedCheck.filtered(speed, after: previous.reportedSpeed, chord: chord, elapsed: elapsed)
    }

    func endpoint(odometer: Double, movingSeconds: Double) -> TripEndpoint {
        TripEndpoint(time: time, latitude: latitude, longitude: longitude, odometer: odometer, movingSeconds: movingSeconds)
    }
}
