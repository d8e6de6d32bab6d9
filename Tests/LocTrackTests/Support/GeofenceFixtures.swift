import Glibc
@testable import LocTrack
@testable import LocTrackMonitor
@testable import LocTrackFormats
@testable import LocTrackSinks

/// Fixes and regions placed in metres around one reference point, for the monitor's tests.
enum GeofenceFixtures {
    static let origin = GeoPoint(unchecked: 52.5, 13.4)
    static let start = Timestamp(seconds: 1_795_000_000)

    /// The point `north` and `east` metres from `origin` (a local plane: exact enough for a few km).
    static func point(north: Double, east: Double) -> GeoPoint {
        let latitude = origin.latitude + north / Earth.metresPerDegree
        let longitude = origin.longitude + east / (Earth.metresPerDegree * cos(origin.latitude * Double.pi / 180))
        return GeoPoint(unchecked: latitude, longitude)
    }

    /// A 2D fix at `second` seconds after `start`.
    static func fix(north: Double, east: Double = 0, eph: Double? = 5, second: Int64) -> Fix {
        let point = point(north: north, east: east)
        return Fix(time: Timestamp(seconds: start.seconds + second), mode: .twoD,
                   latitude: point.latitude, longitude: point.longitude, horizontalError: eph)
    }

    static func circle(radius: Double, north: Double = 0, east: Double = 0) -> GeofenceCondition {
        try! GeofenceCondition.circle(center: point(north: north, east: east), radius: radius)
    }

    /// A polygon through the given (north, east) corners, closed for you.
    static func polygon(_ corners: [(Double, Double)], holes: [[(Double, Double)]] = []) -> GeofenceCondition {
        func ring(_ corners: [(Double, Double)]) -> [GeoPoint] {
            let points = corners.map { point(north: $0.0, east: $0.1) }
            return points + [points[0]]
        }
        return try! GeofenceCondition.polygons([GeoPolygon(exterior: ring(corners), holes: holes.map(ring))])
    }

    static func engine(_ conditions: [(String, GeofenceCondition)], assuming state: GeofenceState = .unknown,
                       dwell: Double = 0) -> GeofenceEngine {
        var snapshot = MonitorSnapshot(name: "test")
        for (identifier, condition) in conditions { snapshot.add(condition, identifier: identifier, assuming: state) }
        return GeofenceEngine(snapshot: snapshot, rules: GeofenceRules(dwellSeconds: dwell))
    }
}
