import LocTrack
import LocTrackMonitor

/// `/api/regions` (docs/http.md): a FeatureCollection with one Feature per region, in the
/// order they were added. A circle is a `Point` with `properties.radius` in metres (GeoJSON
/// has no circles), polygons a `Polygon` or `MultiPolygon`; `properties` has the `id`, the
/// `title` (the identifier when the region has none) and the `state`.
enum RegionsGeoJSON {
    static func featureCollection(_ conditions: [MonitoredCondition]) -> String {
        var text = "{\"type\":\"FeatureCollection\",\"features\":["
        for (index, condition) in conditions.enumerated() {
            if index > 0 { text += "," }
            let id = JSONText.escaped(condition.identifier)
            text += "{\"type\":\"Feature\",\"id\":\"\(id)\",\"geometry\":"
            var radius: Double?
            switch condition.condition.shape {
            case .circle(let center, let metres):
                text += "{\"type\":\"Point\",\"coordinates\":[\(JSONValue.numberText(center.longitude)),"
                text += "\(JSONValue.numberText(center.latitude))]}"
                radius = metres
            case .polygons:
                text += condition.condition.geoJSONGeometry.serialized
            }
            text += ",\"properties\":{\"id\":\"\(id)\",\"title\":\"\(JSONText.escaped(condition.title ?? condition.identifier))\""
            if let radius { text += ",\"radius\":\(JSONValue.numberText(radius))" }
            text += ",\"state\":\"\(condition.state)\"}}"
        }
        return text + "]}"
    }
}
