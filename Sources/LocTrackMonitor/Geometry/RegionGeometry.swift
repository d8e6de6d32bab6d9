import LocTrack
import LocTrackSystem

/// A condition prepared for deciding: its bounding box, its size, and the signed
/// distance from a point to its boundary.
///
/// Distances to polygon edges are measured in a plane tangent at the point asked about
/// (an equirectangular projection centred on it), so the edges that matter, the near
/// ones, are measured to a few centimetres for regions up to tens of kilometres; circles
/// use the great-circle distance. Polygons crossing the antimeridian are not supported
/// (RFC 7946 §3.1.9 says to split them).
package struct RegionGeometry: Sendable {
    package let boundingBox: BoundingBox
    /// The radius of a circle with the region's area, metres: the circle's own radius,
    /// or √(area/π) for polygons. An error circle larger than this cannot fit inside.
    package let size: Double
    private let shape: GeofenceCondition.Shape

    package init(_ condition: GeofenceCondition) {
        shape = condition.shape
        switch condition.shape {
        case .circle(let center, let radius):
            size = radius
            boundingBox = BoundingBox(around: center, radius: radius)
        case .polygons(let polygons):
            let points = polygons.flatMap(\.exterior)
            boundingBox = BoundingBox(enclosing: points)
            let center = boundingBox.center
            let area = polygons.reduce(0.0) { total, polygon in
                let holes = polygon.holes.reduce(0.0) { $0 + Self.area(of: $1, around: center) }
                return total + Self.area(of: polygon.exterior, around: center) - holes
            }
            size = (max(area, 0) / Double.pi).squareRoot()
        }
    }

    /// Metres from `point` to the region's boundary: negative inside, positive outside.
    package func signedDistance(from point: GeoPoint) -> Double {
        switch shape {
        case .circle(let center, let radius):
            return Earth.distance(from: point, to: center) - radius
        case .polygons(let polygons):
            let plane = LocalPlane(origin: point)
            var inside = false
            var nearest = Double.infinity
            for polygon in polygons {
                // Even-odd rule on a ray from the origin towards +x: holes flip it back.
                var crossings = Self.walk(polygon.exterior, in: plane, nearest: &nearest)
                for hole in polygon.holes { crossings += Self.walk(hole, in: plane, nearest: &nearest) }
                inside = inside || crossings % 2 == 1
            }
            return inside ? -nearest : nearest
        }
    }

    /// Walks one closed ring in `plane`: lowers `nearest` to the ring's nearest edge and
    /// returns how many edges a ray from the origin towards +x crosses.
    private static func walk(_ ring: [GeoPoint], in plane: LocalPlane, nearest: inout Double) -> Int {
        var crossings = 0
        var previous = plane.project(ring[0])
        for index in 1..<ring.count {
            let current = plane.project(ring[index])
            nearest = min(nearest, LocalPlane.distanceFromOrigin(toSegment: previous, current))
            if (previous.y > 0) != (current.y > 0) {
                let crossing = previous.x + (0 - previous.y) * (current.x - previous.x) / (current.y - previous.y)
                if crossing > 0 { crossings += 1 }
            }
            previous = current
        }
        return crossings
    }

    /// Shoelace area of a closed ring, square metres, in a plane tangent at `center`.
    private static func area(of ring: [GeoPoint], around center: GeoPoint) -> Double {
        let plane = LocalPlane(origin: center)
        var twiceArea = 0.0
        var previous = plane.project(ring[0])
        for vertex in ring.dropFirst() {
            let current = plane.project(vertex)
            twiceArea += previous.x * current.y - current.x * previous.y
            previous = current
        }
        return abs(twiceArea) / 2
    }
}

/// The sphere loctrack measures on: WGS 84's mean radius (as ``Fix/distance(to:)``).
package enum Earth {
    package static let radius = 6_371_008.8
    package static let metresPerDegree = radius * Double.pi / 180

    /// Great-circle (haversine) distance, metres.
    package static func distance(from a: GeoPoint, to b: GeoPoint) -> Double {
        let toRadians = Double.pi / 180
        let deltaPhi = (b.latitude - a.latitude) * toRadians
        let deltaLambda = (b.longitude - a.longitude) * toRadians
        let h = sin(deltaPhi / 2) * sin(deltaPhi / 2)
            + cos(a.latitude * toRadians) * cos(b.latitude * toRadians) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        return 2 * radius * atan2(h.squareRoot(), (1 - h).squareRoot())
    }
}

/// An equirectangular plane tangent at `origin`, in metres (x east, y north).
struct LocalPlane {
    struct Point {
        var x: Double
        var y: Double
    }

    let origin: GeoPoint
    private let metresPerDegreeLongitude: Double

    init(origin: GeoPoint) {
        self.origin = origin
        metresPerDegreeLongitude = Earth.metresPerDegree * cos(origin.latitude * Double.pi / 180)
    }

    func project(_ point: GeoPoint) -> Point {
        var deltaLongitude = point.longitude - origin.longitude
        if deltaLongitude > 180 { deltaLongitude -= 360 } else if deltaLongitude < -180 { deltaLongitude += 360 }
        return Point(x: deltaLongitude * metresPerDegreeLongitude, y: (point.latitude - origin.latitude) * Earth.metresPerDegree)
    }

    /// Distance from (0, 0) to the segment a–b.
    static func distanceFromOrigin(toSegment a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? -(a.x * dx + a.y * dy) / lengthSquared : 0
        t = min(max(t, 0), 1)
        let x = a.x + t * dx
        let y = a.y + t * dy
        return (x * x + y * y).squareRoot()
    }
}
