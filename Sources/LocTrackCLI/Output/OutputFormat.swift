import LocTrack

/// How fixes are written on stdout.
public enum OutputFormat: String, CaseIterable, Equatable, Sendable {
    /// One JSON object per line, gpsd's TPV field names and units.
    case json
    /// One readable line per fix.
    case text
    /// A header, then one row per fix (RFC 4180).
    case csv
    /// One GPX 1.1 document with a track.
    case gpx
    /// One GeoJSON Feature (a Point) per line.
    case geojson

    /// JSON for pipes and files, text for a person at a terminal.
    public static func `default`(stdoutIsTerminal: Bool) -> OutputFormat {
        stdoutIsTerminal ? .text : .json
    }

    func makeEncoder() -> any FixEncoder {
        switch self {
        case .json: JSONLinesEncoder()
        case .text: TextEncoder()
        case .csv: CSVEncoder()
        case .gpx: GPXEncoder()
        case .geojson: GeoJSONLinesEncoder()
        }
    }
}

extension OutputFormat {
    /// The line for one fix in a line format (json, text, geojson), with its newline.
    func line(for fix: Fix) -> String {
        var encoder = makeEncoder()
        return encoder.encode(fix)
    }
}
