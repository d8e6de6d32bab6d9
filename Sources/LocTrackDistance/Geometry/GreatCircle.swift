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
        // Each sine once (the same value squared as `Fix.distance(to:)` computes twice: the
        // same metres to the bit, half the calls; the odometer and the trips take several a fix).
        let sinHalfPhi = sin(deltaPhi / 2)
        let sinHalfLambda = sin(deltaLambda / 2)
        let a = sinHalfPhi * sinHalfPhi + cos(phi1) * cos(phi2) * sinHalfLambda * sinHalfLambda
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
