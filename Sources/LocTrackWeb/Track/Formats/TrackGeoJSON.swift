import LocTrackFormats

/// `/api/track?format=geojson`: every fix as one GeoJSON Feature (RFC 7946) in a
/// FeatureCollection, a `LineString` with the fixes' times in `properties.coordTimes`
/// (the name toGeoJSON and Mapbox give them) and their `eph` in `properties.eph`.
///
/// Positions are `[lon, lat, altHAE]` when every fix has an ellipsoidal height (GeoJSON's
/// third value is above the WGS 84 ellipsoid), else `[lon, lat]`. One fix is a `Point`
/// (a LineString needs two); none, an empty FeatureCollection.
enum TrackGeoJSON {
    static func encode(_ points: [PackedTrackPoint]) -> [UInt8] {
        var bytes = OutputBytes(reservingCapacity: 120 + 90 * points.count)
        bytes.append("{\"type\":\"FeatureCollection\",\"features\":[")
        guard !points.isEmpty else {
            bytes.append("]}")
            return bytes.bytes
        }
        let withHeight = points.allSatisfy { $0.altitudeHAE != nil }
        bytes.append(points.count == 1
            ? "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":"
            : "{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[")
        for (index, point) in points.enumerated() {
            if index > 0 { bytes.append(byte: 0x2C) }
            bytes.append(byte: 0x5B)
            bytes.appendFixed(point.longitude, decimals: 9)
            bytes.append(byte: 0x2C)
            bytes.appendFixed(point.latitude, decimals: 9)
            if withHeight, let height = point.altitudeHAE {
                bytes.append(byte: 0x2C)
                bytes.appendFixed(height, decimals: 3)
            }
            bytes.append(byte: 0x5D)
        }
        if points.count > 1 { bytes.append(byte: 0x5D) }
        bytes.append("},\"properties\":{\"coordTimes\":[")
        for (index, point) in points.enumerated() {
            bytes.append(index > 0 ? ",\"" : "\"")
            bytes.append(point.timestamp)
            bytes.append(byte: 0x22)
        }
        bytes.append("],\"eph\":[")
        for (index, point) in points.enumerated() {
            if index > 0 { bytes.append(byte: 0x2C) }
            if let eph = point.horizontalError {
                bytes.appendFixed(eph, decimals: 3)
            } else {
                bytes.append("null")
            }
        }
        bytes.append("]}}]}\n")
        return bytes.bytes
    }
}
