import LocTrackSystem

extension Fix {
    /// The great-circle distance to `other` in metres (haversine on a sphere of
    /// the WGS 84 mean radius, 6,371,008.8 m; within 0.5% of the ellipsoidal
    /// distance, far below a GPS receiver's error).
    public func distance(to other: Fix) -> Double {
        let radius = 6_371_008.8
        let toRadians = Double.pi / 180
        let phi1 = latitude * toRadians
        let phi2 = other.latitude * toRadians
        let deltaPhi = (other.latitude - latitude) * toRadians
        let deltaLambda = (other.longitude - longitude) * toRadians
        let a = sin(deltaPhi / 2) * sin(deltaPhi / 2) + cos(phi1) * cos(phi2) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        return 2 * radius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
