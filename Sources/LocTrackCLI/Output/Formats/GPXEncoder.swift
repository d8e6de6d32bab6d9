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

    mutating func begin() -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="loctrack" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:loctrack="\(Self.extensionNamespace)">
          <trk>
            <name>loctrack</name>

        """
    }

    mutating func encode(_ fix: Fix) -> String {
        var text = ""
        let gap = lastTime.map { fix.time.seconds(since: $0) > Self.gapSeconds || fix.time < $0 } ?? false
        if segmentOpen && (gap || breakRequested) {
            text += "    </trkseg>\n"
            segmentOpen = false
        }
        breakRequested = false
        if !segmentOpen {
            text += "    <trkseg>\n"
            segmentOpen = true
        }
        lastTime = fix.time
        text += "      <trkpt lat=\""
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
        text += "<fix>\(Self.fixType(fix))</fix>"
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
        var text = segmentOpen ? "    </trkseg>\n" : ""
        segmentOpen = false
        text += "  </trk>\n</gpx>\n"
        return text
    }

    static func fixType(_ fix: Fix) -> String {
        if fix.status == .dgps { return "dgps" }
        return fix.mode == .threeD ? "3d" : "2d"
    }
}
