import Glibc

/// The great-circle distance the tests measure against, written apart from loctrack's own
/// (`GreatCircle`): the haversine on a sphere of the WGS 84 mean radius, as Traccar's
/// `DistanceHandler` and scripts/corpus-figures.py compute it.
package enum Haversine {
    package static let earthRadius = 6_371_008.8

    /// Metres between two positions in degrees.
    package static func metres(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let r = Double.pi / 180
        let a = pow(sin((latitude2 - latitude1) * r / 2), 2)
            + cos(latitude1 * r) * cos(latitude2 * r) * pow(sin((longitude2 - longitude1) * r / 2), 2)
        return 2 * earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
