import LocTrackSystem

/// Distances between positions, as loctrack measures them everywhere: the haversine on a
/// sphere of the WGS 84 mean radius (the same formula as `Fix.distance(to:)`, so the
/// odometer and the stationary flag agree to the bit).
enum GreatCircle {
    static let earthRadius = 6_371_008.8

    /// Metres between two positions given in degrees.
    static func distance(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let toRadians = Double.pi / 180
        let phi1 = latitude1 * toRadians
        let phi2 = latitude2 * toRadians
        let deltaPhi = (latitude2 - latitude1) * toRadians
        let deltaLambda = (longitude2 - longitude1) * toRadians
        let a = sin(deltaPhi / 2) * sin(deltaPhi / 2) + cos(phi1) * cos(phi2) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        return 2 * earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

extension TrackPoint {
    /// Whether the point can be measured at all: finite coordinates within ±90° and ±180°.
    var hasUsablePosition: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    /// The receiver's speed when it is a usable one (finite, not negative).
    var usableSpeed: Double? {
        guard let speed, speed.isFinite, speed >= 0 else { return nil }
        return speed
    }
}
