package import LocTrack

/// A header line, then one row per fix in a fixed column order, empty cells for
/// unknown values, quoted as RFC 4180 says (CRLF line ends).
package struct CSVEncoder: FixEncoder {
    package static let columns = [
        "time", "device", "mode", "status", "lat", "lon", "altHAE", "altMSL",
        "eph", "epx", "epy", "epv", "speed", "track", "climb", "stationary",
    ]

    package static let header = columns.joined(separator: ",") + "\r\n"

    package mutating func begin() -> String { Self.header }

    package mutating func encode(_ fix: Fix) -> String {
        var row = fix.time.iso8601
        row += ","
        row += Self.quoted(fix.device ?? "")
        row += ",\(fix.mode.rawValue),\(fix.status.rawValue)"
        for (value, decimals) in [
            (Optional(fix.latitude), 9), (Optional(fix.longitude), 9), (fix.altitudeHAE, 4), (fix.altitudeMSL, 4),
            (fix.horizontalError, 3), (fix.longitudeError, 3), (fix.latitudeError, 3), (fix.verticalError, 3),
            (fix.speed, 3), (fix.track, 4), (fix.climb, 3),
        ] {
            row += ","
            if let value, value.isFinite { row.appendFixed(value, decimals: decimals) }
        }
        row += fix.isStationary ? ",true\r\n" : ",false\r\n"
        return row
    }

    /// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
    package static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        var quoted = "\""
        for character in field {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted + "\""
    }
}
