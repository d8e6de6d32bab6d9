import LocTrack
import LocTrackSystem

/// A latitude/longitude box. A box that would cross the antimeridian or reach a pole
/// spans every longitude instead: larger than needed, never too small.
package struct BoundingBox: Sendable, Hashable {
    package var minLatitude: Double
    package var maxLatitude: Double
    package var minLongitude: Double
    package var maxLongitude: Double

    package init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude
        self.maxLongitude = maxLongitude
    }

    package init(enclosing points: [GeoPoint]) {
        self.init(minLatitude: .infinity, maxLatitude: -.infinity, minLongitude: .infinity, maxLongitude: -.infinity)
        for point in points {
            minLatitude = min(minLatitude, point.latitude)
            maxLatitude = max(maxLatitude, point.latitude)
            minLongitude = min(minLongitude, point.longitude)
            maxLongitude = max(maxLongitude, point.longitude)
        }
    }

    /// The box around every point within `radius` metres of `center`.
    package init(around center: GeoPoint, radius: Double) {
        self.init(minLatitude: center.latitude, maxLatitude: center.latitude,
                  minLongitude: center.longitude, maxLongitude: center.longitude)
        self = expanded(by: radius)
    }

    package var center: GeoPoint {
        GeoPoint(unchecked: (minLatitude + maxLatitude) / 2, (minLongitude + maxLongitude) / 2)
    }

    /// This box grown by `metres` on every side.
    package func expanded(by metres: Double) -> BoundingBox {
        let latitudeDelta = metres / Earth.metresPerDegree
        var box = BoundingBox(
            minLatitude: minLatitude - latitudeDelta, maxLatitude: maxLatitude + latitudeDelta,
            minLongitude: minLongitude, maxLongitude: maxLongitude)
        let widest = max(abs(box.minLatitude), abs(box.maxLatitude))
        let cosine = cos(min(widest, 90) * Double.pi / 180)
        let longitudeDelta = cosine > 1e-6 ? latitudeDelta / cosine : 360
        box.minLongitude -= longitudeDelta
        box.maxLongitude += longitudeDelta
        if box.minLatitude < -90 || box.maxLatitude > 90 || box.minLongitude < -180 || box.maxLongitude > 180 {
            box.minLongitude = -180
            box.maxLongitude = 180
        }
        box.minLatitude = max(box.minLatitude, -90)
        box.maxLatitude = min(box.maxLatitude, 90)
        return box
    }

    package func contains(_ point: GeoPoint) -> Bool {
        point.latitude >= minLatitude && point.latitude <= maxLatitude
            && point.longitude >= minLongitude && point.longitude <= maxLongitude
    }
}
