import LocTrack

/// GPX 1.1: one `<trk>`, a new `<trkseg>` after a gap in time or a loss of fix.
///
/// Each point has `<ele>` (above mean sea level, else the ellipsoid), `<time>`
/// and `<fix>`. gpsd's error estimates are not DOPs, so there is no `<hdop>`:
/// `eph` goes in an extension element instead.
struct GPXEncoder: FixEncoder {
    /// A longer silence between two fixes starts a new segment.
    static let gapSeconds = 10.0
    static let extensionNamespace = "urn:loctrack:gpx:1"

    private var segmentOpen = false
    private var lastTime: Timestamp?
    private var breakRequested = false

    /// The document up to the first segment.
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="loctrack" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:loctrack="\(extensionNamespace)">
          <trk>
            <name>loctrack</name>

        """
    static let segmentStart = "    <trkseg>\n"
    static let segmentEnd = "    </trkseg>\n"
    /// What closes the document after the last segment.
    static let documentEnd = "  </trk>\n</gpx>\n"

    mutating func begin() -> String { Self.header }

    mutating func encode(_ fix: Fix) -> String {
        var text = ""
        let gap = Self.isGap(after: lastTime, before: fix)
        if segmentOpen && (gap || breakRequested) {
            text += Self.segmentEnd
            segmentOpen = false
        }
        breakRequested = false
        if !segmentOpen {
            text += Self.segmentStart
            segmentOpen = true
        }
        lastTime = fix.time
        return text + Self.point(fix)
    }

    /// Whether `fix` does not continue the segment of a fix at `previous`: a silence longer
    /// than ``gapSeconds``, or time going backwards.
    static func isGap(after previous: Timestamp?, before fix: Fix) -> Bool {
        previous.map { fix.time.seconds(since: $0) > gapSeconds || fix.time < $0 } ?? false
    }

    /// The `<trkpt>` line of `fix`, with its newline.
    static func point(_ fix: Fix) -> String {
        var text = "      <trkpt lat=\""
        text.appendFixed(fix.latitude, decimals: 9)
        text += "\" lon=\""
        text.appendFixed(fix.longitude, decimals: 9)
        text += "\">"
        if let elevation = fix.altitudeMSL ?? fix.altitudeHAE {
            text += "<ele>"
            text.appendFixed(elevation, decimals: 3)
            text += "</ele>"
        }
        text += "<time>\(fix.time.iso8601)</time>"
        text += "<fix>\(fixType(fix))</fix>"
        if let error = fix.horizontalError {
            text += "<extensions><loctrack:eph>"
            text.appendFixed(error, decimals: 3)
            text += "</loctrack:eph></extensions>"
        }
        text += "</trkpt>\n"
        return text
    }

    /// The next fix starts a new segment (closed there, so no segment is ever empty).
    mutating func breakTrack() {
        breakRequested = true
    }

    mutating func end() -> String {
        var text = segmentOpen ? Self.segmentEnd : ""
        segmentOpen = false
        text += Self.documentEnd
        return text
    }

    static func fixType(_ fix: Fix) -> String {
        if fix.status == .dgps { return "dgps" }
        return fix.mode == .threeD ? "3d" : "2d"
    }
}
