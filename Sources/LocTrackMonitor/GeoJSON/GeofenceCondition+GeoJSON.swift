package import LocTrack

extension GeofenceCondition {
    /// The condition as a GeoJSON geometry, the form the state file stores: one polygon
    /// as a `Polygon`, several as a `MultiPolygon`, and a circle as a `Point` with a
    /// `radius` member in metres (GeoJSON has no circles; RFC 7946 §6.1 allows such
    /// foreign members). Positions are `[longitude, latitude]`.
    package var geoJSONGeometry: JSONValue {
        switch shape {
        case .circle(let center, let radius):
            ["type": "Point", "coordinates": Self.position(center), "radius": .number(radius)]
        case .polygons(let polygons) where polygons.count == 1:
            ["type": "Polygon", "coordinates": Self.coordinates(polygons[0])]
        case .polygons(let polygons):
            ["type": "MultiPolygon", "coordinates": .array(polygons.map(Self.coordinates))]
        }
    }

    /// Reads back what ``geoJSONGeometry`` writes: a `Polygon`, a `MultiPolygon`, or a
    /// `Point` with a `radius` member; anything else throws ``GeofenceError/invalidGeometry(_:)``.
    package init(geoJSONGeometry geometry: JSONValue) throws(GeofenceError) {
        self = try GeoJSONGeometry.condition(geometry, radius: nil, at: [])
    }

    private static func coordinates(_ polygon: GeoPolygon) -> JSONValue {
        .array(polygon.rings.map { ring in .array(ring.map(position)) })
    }

    private static func position(_ point: GeoPoint) -> JSONValue {
        [.number(point.longitude), .number(point.latitude)]
    }
}
