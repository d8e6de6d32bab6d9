package import LocTrack
package import LocTrackDistance

/// Turns fixes into one output format, including a document's beginning and end.
///
/// Line formats (JSON lines, text, GeoJSON lines) have no beginning or end;
/// CSV has a header; GPX is one document that ``end()`` completes, so it is
/// well-formed however the stream stops.
package protocol FixEncoder {
    /// What comes before the first fix.
    mutating func begin() -> String
    mutating func encode(_ fix: Fix) -> String
    /// Appends the fix's text to a batch's bytes (what a stream writes with one `write`).
    mutating func encode(_ fix: Fix, into output: inout OutputBytes)
    /// The same, with the odometer after the fix when the command measures distance
    /// (`--odometer`); a format without a place for it writes the fix alone.
    mutating func encode(_ fix: Fix, odometer: OdometerReading?, into output: inout OutputBytes)
    /// Appends a trip's start or end as a line of this format (`--trips`), if it has one:
    /// JSON lines and text do; a document (GPX, CSV, GeoJSON's features) does not.
    mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool
    /// The fixes before and after are not one continuous track (a loss of fix, an outage).
    mutating func breakTrack()
    /// gpsd's latest SKY report, for a format that writes what only SKY knows (NMEA's
    /// satellites used and HDOP); the others ignore it.
    mutating func note(_ sky: SkyView)
    /// What completes the output.
    mutating func end() -> String
}

extension FixEncoder {
    package mutating func begin() -> String { "" }
    package mutating func breakTrack() {}
    package mutating func note(_ sky: SkyView) {}
    package mutating func end() -> String { "" }
    package mutating func encode(_ fix: Fix, into output: inout OutputBytes) { output.append(encode(fix)) }
    package mutating func encode(_ fix: Fix, odometer: OdometerReading?, into output: inout OutputBytes) {
        encode(fix, into: &output)
    }
    package mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool { false }
}

package struct JSONLinesEncoder: FixEncoder {
    package mutating func encode(_ fix: Fix) -> String { JSONLine.format(fix) }
    package mutating func encode(_ fix: Fix, into output: inout OutputBytes) { JSONLine.write(fix, into: &output) }
    package mutating func encode(_ fix: Fix, odometer: OdometerReading?, into output: inout OutputBytes) {
        JSONLine.write(fix, odometer: odometer, into: &output)
    }
    package mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool {
        TripLines.appendEventJSON(trip, to: &output)
        return true
    }
}

package struct TextEncoder: FixEncoder {
    package mutating func encode(_ fix: Fix) -> String { TextLine.format(fix) }
    package mutating func encode(_ fix: Fix, odometer: OdometerReading?, into output: inout OutputBytes) {
        output.append(TextLine.format(fix, odometer: odometer))
    }
    package mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool {
        output.append(TripLines.eventText(trip))
        return true
    }
}

/// One GeoJSON Feature per line (RFC 7946 text sequences without the RS byte, as
/// `jq` and most tools expect): a Point at [lon, lat, altHAE] with the fix's
/// JSON fields as properties.
package struct GeoJSONLinesEncoder: FixEncoder {
    package mutating func encode(_ fix: Fix) -> String {
        var bytes = OutputBytes(reservingCapacity: 500)
        encode(fix, into: &bytes)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    package mutating func encode(_ fix: Fix, into line: inout OutputBytes) {
        encode(fix, odometer: nil, into: &line)
    }

    package mutating func encode(_ fix: Fix, odometer: OdometerReading?, into line: inout OutputBytes) {
        line.append("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
        line.appendFixed(fix.longitude, decimals: 9)
        line.append(byte: 0x2C)
        line.appendFixed(fix.latitude, decimals: 9)
        if let altitude = fix.altitudeHAE {  // GeoJSON heights are above the WGS 84 ellipsoid
            line.append(byte: 0x2C)
            line.appendFixed(altitude, decimals: 4)
        }
        line.append("]},\"properties\":")
        JSONLine.write(fix, odometer: odometer, into: &line, newline: false)
        line.append("}\n")
    }
}
