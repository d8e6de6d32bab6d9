import LocTrack

/// A region a ``GeofenceMonitor`` watches: a circle, or polygons with holes.
///
/// Built only through the throwing factories, so every condition a monitor holds is
/// valid: coordinates in range, a positive radius, closed rings of at least four
/// positions (GeoJSON's rules, RFC 7946 §3.1.6).
public struct GeofenceCondition: Sendable, Hashable {
    public enum Shape: Sendable, Hashable {
        /// Every point within `radius` metres of `center` (great-circle distance).
        case circle(center: GeoPoint, radius: Double)
        /// Every point inside one of the polygons (a GeoJSON Polygon is one, a MultiPolygon several).
        case polygons([GeoPolygon])
    }

    public let shape: Shape

    /// A circle of `radius` metres around `center`.
    public static func circle(center: GeoPoint, radius: Double) throws(GeofenceError) -> GeofenceCondition {
        guard radius.isFinite, radius > 0 else { throw .invalidRadius(radius) }
        return GeofenceCondition(shape: .circle(center: center, radius: radius))
    }

    /// One polygon, or the union of several (a GeoJSON MultiPolygon).
    public static func polygons(_ polygons: [GeoPolygon]) throws(GeofenceError) -> GeofenceCondition {
        guard !polygons.isEmpty else { throw .invalidGeometry("a MultiPolygon needs at least one polygon") }
        return GeofenceCondition(shape: .polygons(polygons))
    }

    private init(shape: Shape) {
        self.shape = shape
    }
}

/// A polygon: an outer ring and any number of holes, each a closed list of points.
public struct GeoPolygon: Sendable, Hashable {
    /// The outer boundary, first and last point equal.
    public let exterior: [GeoPoint]
    /// Holes, each closed like the exterior.
    public let holes: [[GeoPoint]]

    public init(exterior: [GeoPoint], holes: [[GeoPoint]] = []) throws(GeofenceError) {
        for ring in [exterior] + holes {
            guard ring.count >= 4 else {
                throw .invalidGeometry("a polygon ring needs at least 4 positions (got \(ring.count))")
            }
            guard ring.first == ring.last else {
                throw .invalidGeometry("a polygon ring must end where it starts")
            }
        }
        self.exterior = exterior
        self.holes = holes
    }

    /// All rings, exterior first.
    var rings: [[GeoPoint]] { [exterior] + holes }
}
