import LocTrack

/// A region read from a GeoJSON document, and the identifier the document gives it.
package struct GeoJSONRegion: Sendable, Hashable {
    /// From the Feature's `properties.id`, else its top-level `id`; nil for a bare geometry.
    package let identifier: String?
    package let condition: GeofenceCondition
    /// The Feature's `properties.name` (its display name), nil when absent or empty.
    package let title: String?

    package init(identifier: String?, condition: GeofenceCondition, title: String? = nil) {
        self.identifier = identifier
        self.condition = condition
        self.title = title
    }
}

/// Reads the regions of a GeoJSON document (RFC 7946), for `loctrack monitor add --geojson`.
///
/// Accepted documents:
/// - a `FeatureCollection`: each feature in order (at least one);
/// - a `Feature` whose geometry is a `Polygon` or a `MultiPolygon`;
/// - a `Feature` whose geometry is a `Point` and whose `properties.radius` is a positive
///   number of metres: the circle of that radius around the point. GeoJSON has no
///   circles; this is the common convention of tools that draw them. (A `radius` foreign
///   member on the Point itself, the form ``GeofenceCondition/geoJSONGeometry`` writes,
///   is read too, so what loctrack writes reads back.)
/// - a bare `Polygon` or `MultiPolygon` geometry (or a `Point` with a `radius` member),
///   which has no identifier.
///
/// A feature's identifier is `properties.id` when it is a string or a number, else the
/// Feature's `id` (RFC 7946 §3.2), else nil; numbers are written as JSON writes them.
/// Its display name (``GeoJSONRegion/title``) is `properties.name`, a string (an empty
/// one counts as none; anything else than a string throws).
/// Positions are `[longitude, latitude]` or `[longitude, latitude, altitude]`; the
/// altitude is ignored. Anything else throws ``GeofenceError/invalidGeometry(_:)`` with
/// one line saying where (`feature 3, polygon 2, ring 1, position 5`, features and
/// everything below counted from 1) and what is wrong; coordinates out of range, a
/// non-positive radius and rings that are open or shorter than 4 positions are reported
/// with the text of ``GeoPoint``'s, ``GeofenceCondition``'s and ``GeoPolygon``'s errors.
package enum GeoJSONRegions {
    package static func conditions(in bytes: [UInt8]) throws(GeofenceError) -> [GeoJSONRegion] {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw .invalidGeometry(error.description)
        }
        guard document.objectValue != nil else {
            throw .invalidGeometry("expected a GeoJSON object, found \(document.kindDescription)")
        }
        switch document["type"] {
        case .string("FeatureCollection"):
            return try featureCollection(document)
        case .string("Feature"):
            return [try feature(document, at: [])]
        case .string:
            let condition = try GeoJSONGeometry.condition(document, radius: nil, at: [])
            return [GeoJSONRegion(identifier: nil, condition: condition)]
        case nil:
            throw .invalidGeometry("expected a GeoJSON object with a \"type\" member")
        case let type?:
            throw .invalidGeometry("expected \"type\" to be a string, found \(type.kindDescription)")
        }
    }

    private static func featureCollection(_ document: JSONValue) throws(GeofenceError) -> [GeoJSONRegion] {
        guard let features = document["features"] else {
            throw .invalidGeometry("a FeatureCollection without a \"features\" member")
        }
        guard let list = features.arrayValue else {
            throw .invalidGeometry("expected \"features\" to be an array, found \(features.kindDescription)")
        }
        guard !list.isEmpty else { throw .invalidGeometry("the FeatureCollection has no features, so no region") }
        var regions: [GeoJSONRegion] = []
        for (index, element) in list.enumerated() {
            regions.append(try feature(element, at: ["feature \(index + 1)"]))
        }
        return regions
    }

    private static func feature(_ value: JSONValue, at path: [String]) throws(GeofenceError) -> GeoJSONRegion {
        guard value.objectValue != nil else {
            throw GeoJSONGeometry.problem(path, "expected a Feature object, found \(value.kindDescription)")
        }
        guard value["type"] == .string("Feature") else {
            let found = value["type"].map { $0.stringValue.map { "a \($0)" } ?? $0.kindDescription } ?? "no \"type\""
            throw GeoJSONGeometry.problem(path, "expected a Feature, found \(found)")
        }
        let properties = value["properties"] ?? .null
        guard properties.isNull || properties.objectValue != nil else {
            throw GeoJSONGeometry.problem(path, "expected \"properties\" to be an object or null, found \(properties.kindDescription)")
        }
        guard let geometry = value["geometry"], !geometry.isNull else {
            throw GeoJSONGeometry.problem(path, "a Feature without a geometry is not a region")
        }
        let condition = try GeoJSONGeometry.condition(geometry, radius: properties["radius"], at: path)
        let identifier = identifier(properties["id"]) ?? identifier(value["id"])
        var title: String?
        switch properties["name"] {
        case nil, .null?: title = nil
        case .string(let text)?: title = text.isEmpty ? nil : text
        case let other?:
            throw GeoJSONGeometry.problem(path, "expected properties.name to be a string, found \(other.kindDescription)")
        }
        return GeoJSONRegion(identifier: identifier, condition: condition, title: title)
    }

    /// A string as it is, a number as JSON writes it (`7`, `2.5`); anything else nil.
    private static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .number(let number)?: JSONValue.numberText(number)
        default: nil
        }
    }
}
