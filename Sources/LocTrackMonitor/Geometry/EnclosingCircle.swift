import LocTrack
import LocTrackSystem

extension GeofenceCondition {
    /// A circle that holds the whole region, for consumers that know only circles
    /// (OwnTracks waypoints, Home Assistant zones).
    ///
    /// A circle is itself. Polygons get the centroid of their area (outer rings less holes,
    /// all polygons of a MultiPolygon together, in a plane tangent at their first point)
    /// and, as the radius, the largest great-circle distance from it to a point of an
    /// outer ring. That circle contains every polygon, though it is not the smallest one
    /// that does: for a long or L-shaped region it reaches well beyond the region.
    public var enclosingCircle: (center: GeoPoint, radius: Double) {
        switch shape {
        case .circle(let center, let radius):
            return (center, radius)
        case .polygons(let polygons):
            let center = Self.centroid(of: polygons)
            let radius = polygons.flatMap(\.exterior).map { Earth.distance(from: center, to: $0) }.max() ?? 0
            return (center, radius)
        }
    }

    /// The area centroid, in a local plane around the first point; the mean of the outer
    /// rings' points when the area is nil (degenerate rings).
    private static func centroid(of polygons: [GeoPolygon]) -> GeoPoint {
        let origin = polygons[0].exterior[0]
        let toRadians = Double.pi / 180
        let xScale = Earth.metresPerDegree * cos(origin.latitude * toRadians)
        func plane(_ point: GeoPoint) -> (x: Double, y: Double) {
            ((point.longitude - origin.longitude) * xScale, (point.latitude - origin.latitude) * Earth.metresPerDegree)
        }
        var area = 0.0, sumX = 0.0, sumY = 0.0
        for polygon in polygons {
            for (index, ring) in polygon.rings.enumerated() {
                // Outer rings add, holes take away, whichever way each ring winds.
                var ringArea = 0.0, ringX = 0.0, ringY = 0.0
                for (a, b) in zip(ring, ring.dropFirst()) {
                    let p = plane(a), q = plane(b)
                    let cross = p.x * q.y - q.x * p.y
                    ringArea += cross
                    ringX += (p.x + q.x) * cross
                    ringY += (p.y + q.y) * cross
                }
                let sign: Double = (index == 0) == (ringArea >= 0) ? 1 : -1
                area += sign * ringArea / 2
                sumX += sign * ringX / 6
                sumY += sign * ringY / 6
            }
        }
        let x: Double, y: Double
        if abs(area) > 1e-6 {
            (x, y) = (sumX / area, sumY / area)
        } else {
            let points = polygons.flatMap { $0.exterior.dropLast() }.map(plane)
            (x, y) = (points.map(\.x).reduce(0, +) / Double(points.count), points.map(\.y).reduce(0, +) / Double(points.count))
        }
        let latitude = min(90, max(-90, origin.latitude + y / Earth.metresPerDegree))
        let longitude = xScale > 0 ? origin.longitude + x / xScale : origin.longitude
        return GeoPoint(unchecked: latitude, min(180, max(-180, longitude)))
    }
}
