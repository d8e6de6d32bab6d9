import LocTrack

/// Where a receiver stands, as the mean of its recent positions there: a single fix is as
/// wrong as the receiver's noise, and a departure measured from one wrong fix starts early.
struct StandingPlace: Sendable {
    /// At most this many positions weigh in the mean: older ones fade, so a slow drift of
    /// the fix is followed.
    static let meanPositions = 10.0

    private(set) var latitude: Double
    private(set) var longitude: Double
    /// The error circle of the newest position taken in.
    private(set) var radius: Double
    /// The time of the newest position taken in.
    private(set) var time: Timestamp
    private var weight = 1.0
    /// The settled place a jump left, while the place it jumped to is not settled: a fix
    /// back within reach of it shows that the jump was one (a multipath burst caught by a
    /// logger writing every 10 s, whose way back looks like a departure).
    private var home: Home?

    struct Home: Sendable {
        let latitude: Double
        let longitude: Double
        let radius: Double
        let weight: Double
        let time: Timestamp
    }

    init(_ sample: OdometerSample) {
        latitude = sample.latitude
        longitude = sample.longitude
        radius = sample.radius
        time = sample.time
    }

    func distance(to sample: OdometerSample) -> Double {
        GreatCircle.distance(latitude, longitude, sample.latitude, sample.longitude)
    }

    /// How far a position of a receiver that stands here may be from here: the place's
    /// error circle and the position's added (each is within its own of the truth).
    func separation(from sample: OdometerSample) -> Double { radius + sample.radius }

    func contains(_ sample: OdometerSample) -> Bool { distance(to: sample) <= separation(from: sample) }

    /// A place known from fewer positions than this is still being found: positions within
    /// reach of it count towards it even while the receiver may be departing (after a
    /// jump, the one position it jumped to is a poor centre for the next ones).
    static let settledPositions = 3.0

    var isSettled: Bool { weight >= Self.settledPositions }

    /// Takes `sample` into the mean when it is within reach of it; otherwise the receiver
    /// stands at `sample` now (it drifted, or jumped).
    mutating func take(_ sample: OdometerSample) {
        if contains(sample) { return merge(sample) }
        if returnsHome(sample), let home {
            latitude = home.latitude
            longitude = home.longitude
            radius = home.radius
            weight = home.weight
            time = home.time
            self.home = nil
            return merge(sample)
        }
        let left = isSettled ? Home(latitude: latitude, longitude: longitude, radius: radius, weight: weight, time: time) : home
        self = StandingPlace(sample)
        home = left
    }

    /// Whether `sample` is back within reach of the settled place a jump left, while the
    /// place jumped to is not settled yet.
    func returnsHome(_ sample: OdometerSample) -> Bool {
        guard !isSettled, let home else { return false }
        let distance = GreatCircle.distance(home.latitude, home.longitude, sample.latitude, sample.longitude)
        return distance <= home.radius + sample.radius
    }

    /// Takes `sample`, within reach, into the mean while the place is still being found;
    /// a settled place stays where it is (the receiver may be leaving it).
    mutating func refine(with sample: OdometerSample) {
        if !isSettled { merge(sample) }
    }

    private mutating func merge(_ sample: OdometerSample) {
        weight = min(weight + 1, Self.meanPositions)
        latitude += (sample.latitude - latitude) / weight
        // The shorter way round, so that a place on the antimeridian does not average to 0°.
        var east = sample.longitude - longitude
        if east > 180 { east -= 360 } else if east < -180 { east += 360 }
        longitude += east / weight
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        radius = sample.radius
        time = sample.time
    }
}
