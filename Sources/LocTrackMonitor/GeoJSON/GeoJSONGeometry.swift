import LocTrack

/// GeoJSON geometry objects → conditions, with the location of every error.
enum GeoJSONGeometry {
    /// The condition of a `Polygon`, a `MultiPolygon`, or a `Point` with a radius
    /// (`radius`, from the Feature's properties, else the geometry's own `radius` member).
    static func condition(_ geometry: JSONValue, radius: JSONValue?, at path: [String]) throws(GeofenceError) -> GeofenceCondition {
        guard geometry.objectValue != nil else {
            throw problem(path, "expected a geometry object, found \(geometry.kindDescription)")
        }
        guard let type = geometry["type"]?.stringValue else {
            throw problem(path, "expected a geometry with a string \"type\"")
        }
        switch type {
        case "Polygon", "MultiPolygon", "Point":
            break
        case "LineString", "MultiLineString", "MultiPoint", "GeometryCollection":
            throw problem(path, "a \(type) is not a region; expected Polygon or MultiPolygon")
        case "Feature", "FeatureCollection":
            throw problem(path, "expected a geometry, found a \(type)")
        default:
            throw problem(path, "unknown geometry type \"\(type)\"; expected Polygon or MultiPolygon")
        }
        guard let coordinates = geometry["coordinates"] else {
            throw problem(path, "a \(type) without \"coordinates\"")
        }
        if type == "Point" {
            return try circle(coordinates, radius: radius ?? geometry["radius"], at: path)
        }
        if type == "Polygon" { return try union([try polygon(coordinates, at: path)], at: path) }
        let list = try array(coordinates, of: "polygons", at: path)
        var polygons: [GeoPolygon] = []
        for (index, element) in list.enumerated() {
            polygons.append(try polygon(element, at: path + ["polygon \(index + 1)"]))
        }
        return try union(polygons, at: path)
    }

    private static func union(_ polygons: [GeoPolygon], at path: [String]) throws(GeofenceError) -> GeofenceCondition {
        do {
            return try .polygons(polygons)
        } catch {
            throw located(error, path)
        }
    }

    private static func circle(_ coordinates: JSONValue, radius: JSONValue?, at path: [String]) throws(GeofenceError) -> GeofenceCondition {
        guard let radius else {
            throw problem(path, "a Point is a region only with a radius: expected a positive number \"radius\" (metres) in the Feature's properties")
        }
        guard let metres = radius.doubleValue else {
            throw problem(path, "expected \"radius\" to be a number of metres, found \(radius.kindDescription)")
        }
        let center = try position(coordinates, at: path)
        do {
            return try .circle(center: center, radius: metres)
        } catch {
            throw located(error, path)
        }
    }

    private static func polygon(_ value: JSONValue, at path: [String]) throws(GeofenceError) -> GeoPolygon {
        let list = try array(value, of: "rings", at: path)
        guard !list.isEmpty else { throw problem(path, "a polygon needs at least its exterior ring") }
        var rings: [[GeoPoint]] = []
        for (index, element) in list.enumerated() {
            rings.append(try ring(element, at: path + ["ring \(index + 1)"]))
        }
        do {
            return try GeoPolygon(exterior: rings[0], holes: Array(rings.dropFirst()))
        } catch {
            throw located(error, path)
        }
    }

    /// A closed ring of at least 4 positions (checked here, so the error names the ring).
    private static func ring(_ value: JSONValue, at path: [String]) throws(GeofenceError) -> [GeoPoint] {
        let list = try array(value, of: "positions", at: path)
        var points: [GeoPoint] = []
        for (index, element) in list.enumerated() {
            points.append(try position(element, at: path + ["position \(index + 1)"]))
        }
        do {
            _ = try GeoPolygon(exterior: points)
        } catch {
            throw located(error, path)
        }
        return points
    }

    /// `[longitude, latitude]` or `[longitude, latitude, altitude]`; the altitude is ignored.
    private static func position(_ value: JSONValue, at path: [String]) throws(GeofenceError) -> GeoPoint {
        guard let numbers = value.arrayValue else {
            throw problem(path, "expected a position [longitude, latitude], found \(value.kindDescription)")
        }
        guard numbers.count == 2 || numbers.count == 3 else {
            throw problem(path, "expected a position of 2 or 3 numbers [longitude, latitude, altitude?], found \(numbers.count) elements")
        }
        if let other = numbers.first(where: { $0.doubleValue == nil }) {
            throw problem(path, "expected numbers in a position, found \(other.kindDescription)")
        }
        let longitude = numbers[0].doubleValue!, latitude = numbers[1].doubleValue!
        do {
            return try GeoPoint(latitude: latitude, longitude: longitude)
        } catch {
            let swapped = abs(latitude) <= 180 && abs(longitude) <= 90 ? " (GeoJSON positions are [longitude, latitude])" : ""
            throw problem(path, error.description + swapped)
        }
    }

    private static func array(_ value: JSONValue, of what: String, at path: [String]) throws(GeofenceError) -> [JSONValue] {
        guard let list = value.arrayValue else {
            throw problem(path, "expected an array of \(what), found \(value.kindDescription)")
        }
        return list
    }

    /// `.invalidGeometry` with the location in front: "feature 2, ring 1: …".
    static func problem(_ path: [String], _ text: String) -> GeofenceError {
        .invalidGeometry(path.isEmpty ? text : "\(path.joined(separator: ", ")): \(text)")
    }

    /// An error of the geometry types (`GeoPolygon`, `GeofenceCondition`) with the location in front.
    private static func located(_ error: GeofenceError, _ path: [String]) -> GeofenceError {
        guard case .invalidGeometry(let reason) = error else { return problem(path, error.description) }
        return problem(path, reason)
    }
}
