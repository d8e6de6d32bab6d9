package import LocTrack

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
    /// One OwnTracks `location` message per line.
    case owntracks
    /// NMEA 0183 `RMC` and `GGA` sentences per fix, what a chart plotter reads.
    case nmea

    /// JSON for pipes and files, text for a person at a terminal.
    public static func `default`(stdoutIsTerminal: Bool) -> OutputFormat {
        stdoutIsTerminal ? .text : .json
    }

    /// The format a track file of this name holds: the one its extension names (`.gpx`,
    /// `.csv`, `.geojson`, `.txt`, `.nmea`), else `other` (`--format`), else JSON lines.
    public init(fileName: String, otherwise other: OutputFormat? = nil) {
        self = Self.named(byExtensionOf: fileName) ?? other ?? .json
    }

    /// The format a file name's extension names, or nil (`.json`, `.jsonl` and others name
    /// none: JSON lines, OwnTracks and GeoJSON lines are all JSON).
    package static func named(byExtensionOf fileName: String) -> OutputFormat? {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        let parts = name.split(separator: ".")
        guard parts.count > 1, let suffix = parts.last?.lowercased() else { return nil }
        switch suffix {
        case "gpx": return .gpx
        case "csv": return .csv
        case "geojson", "geojsonl", "geojsons": return .geojson
        case "txt", "text", "log": return .text
        case "nmea": return .nmea
        default: return nil
        }
    }

    /// Whether this format writes what only gpsd's SKY report says (NMEA's satellites used
    /// and HDOP): the session then parses SKY.
    public var needsSatelliteReports: Bool { self == .nmea }

    /// - Parameter trackerID: the OwnTracks tracker id (`--tid`); nil: from the host name.
    package func makeEncoder(trackerID: String? = nil) -> any FixEncoder {
        switch self {
        case .json: JSONLinesEncoder()
        case .text: TextEncoder()
        case .csv: CSVEncoder()
        case .gpx: GPXEncoder()
        case .geojson: GeoJSONLinesEncoder()
        case .owntracks:
            OwnTracksEncoder(trackerID: OwnTracksEncoder.trackerID(given: trackerID))
        case .nmea: NMEAEncoder()
        }
    }
}

extension OutputFormat {
    /// The line for one fix in a line format (json, text, geojson, owntracks), with its newline.
    package func line(for fix: Fix, trackerID: String? = nil) -> String {
        var encoder = makeEncoder(trackerID: trackerID)
        return encoder.encode(fix)
    }
}
