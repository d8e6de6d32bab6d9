import LocTrack

/// Turns fixes into one output format, including a document's beginning and end.
///
/// Line formats (JSON lines, text, GeoJSON lines) have no beginning or end;
/// CSV has a header; GPX is one document that ``end()`` completes, so it is
/// well-formed however the stream stops.
protocol FixEncoder {
    /// What comes before the first fix.
    mutating func begin() -> String
    mutating func encode(_ fix: Fix) -> String
    /// The fixes before and after are not one continuous track (a loss of fix, an outage).
    mutating func breakTrack()
    /// What completes the output.
    mutating func end() -> String
}

extension FixEncoder {
    mutating func begin() -> String { "" }
    mutating func breakTrack() {}
    mutating func end() -> String { "" }
}

struct JSONLinesEncoder: FixEncoder {
    mutating func encode(_ fix: Fix) -> String { JSONLine.format(fix) }
}

struct TextEncoder: FixEncoder {
    mutating func encode(_ fix: Fix) -> String { TextLine.format(fix) }
}

/// One GeoJSON Feature per line (RFC 7946 text sequences without the RS byte, as
/// `jq` and most tools expect): a Point at [lon, lat, altHAE] with the fix's
/// JSON fields as properties.
struct GeoJSONLinesEncoder: FixEncoder {
    mutating func encode(_ fix: Fix) -> String {
        var line = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":["
        line.appendFixed(fix.longitude, decimals: 9)
        line += ","
        line.appendFixed(fix.latitude, decimals: 9)
        if let altitude = fix.altitudeHAE {  // GeoJSON heights are above the WGS 84 ellipsoid
            line += ","
            line.appendFixed(altitude, decimals: 4)
        }
        line += "]},\"properties\":"
        line += JSONLine.format(fix).dropLast()  // without its newline
        line += "}\n"
        return line
    }
}
