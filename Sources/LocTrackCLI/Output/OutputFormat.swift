import LocTrack
import LocTrackMQTT

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

    /// JSON for pipes and files, text for a person at a terminal.
    public static func `default`(stdoutIsTerminal: Bool) -> OutputFormat {
        stdoutIsTerminal ? .text : .json
    }

    /// `--output` without `--format`: the format a file of this name holds (`.gpx`, `.csv`,
    /// `.geojson`, `.txt`), else JSON lines.
    public init(fileName: String) {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        let suffix = name.split(separator: ".").count > 1 ? name.split(separator: ".").last.map { $0.lowercased() } : nil
        switch suffix {
        case "gpx": self = .gpx
        case "csv": self = .csv
        case "geojson", "geojsonl", "geojsons": self = .geojson
        case "txt", "text", "log": self = .text
        default: self = .json
        }
    }

    /// - Parameter trackerID: the OwnTracks tracker id (`--tid`); nil: from the host name.
    func makeEncoder(trackerID: String? = nil) -> any FixEncoder {
        switch self {
        case .json: JSONLinesEncoder()
        case .text: TextEncoder()
        case .csv: CSVEncoder()
        case .gpx: GPXEncoder()
        case .geojson: GeoJSONLinesEncoder()
        case .owntracks:
            OwnTracksEncoder(trackerID: trackerID ?? PublishOptions.defaultTrackerID(hostName: HostName.current()))
        }
    }
}

extension OutputFormat {
    /// The line for one fix in a line format (json, text, geojson, owntracks), with its newline.
    func line(for fix: Fix, trackerID: String? = nil) -> String {
        var encoder = makeEncoder(trackerID: trackerID)
        return encoder.encode(fix)
    }
}
