package import LocTrack

/// GPX 1.1: one `<trk>`, a new `<trkseg>` after a gap in time or a loss of fix.
///
/// Each point has `<ele>` (above mean sea level, else the ellipsoid), `<time>`
/// and `<fix>`. gpsd's error estimates are not DOPs, so there is no `<hdop>`:
/// `eph` goes in an extension element instead.
package struct GPXEncoder: FixEncoder {
    /// A longer silence between two fixes starts a new segment.
    package static let gapSeconds = 10.0
    package static let extensionNamespace = "urn:loctrack:gpx:1"

    private var segmentOpen = false
    private var lastTime: Timestamp?
    private var breakRequested = false

    /// The document up to the first segment.
    package static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="loctrack" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:loctrack="\(extensionNamespace)">
          <trk>
            <name>loctrack</name>

        """
    package static let segmentStart = "    <trkseg>\n"
    package static let segmentEnd = "    </trkseg>\n"
    /// What closes the document after the last segment.
    package static let documentEnd = "  </trk>\n</gpx>\n"

    package mutating func begin() -> String { Self.header }

    package mutating func encode(_ fix: Fix) -> String {
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
    package static func isGap(after previous: Timestamp?, before fix: Fix) -> Bool {
        previous.map { fix.time.seconds(since: $0) > gapSeconds || fix.time < $0 } ?? false
    }

    /// The `<trkpt>` line of `fix`, with its newline.
    package static func point(_ fix: Fix) -> String {
        var bytes = OutputBytes(reservingCapacity: 200)
        writePoint(fix, into: &bytes)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    /// Appends the `<trkpt>` line of `fix`, with its newline, to `line`.
    package static func writePoint(_ fix: Fix, into line: inout OutputBytes) {
        writePoint(
            latitude: fix.latitude, longitude: fix.longitude, elevation: fix.altitudeMSL ?? fix.altitudeHAE,
            time: fix.time, fixType: fixType(fix), horizontalError: fix.horizontalError, into: &line)
    }

    /// The `<trkpt>` line of a point, with its newline, appended to `line`: for writers that
    /// keep a track's values without `Fix`es (`serve`'s track download).
    /// - Parameter elevation: above mean sea level, else the ellipsoid.
    package static func writePoint(
        latitude: Double, longitude: Double, elevation: Double?, time: Timestamp, fixType: StaticString,
        horizontalError: Double?, into line: inout OutputBytes
    ) {
        line.append("      <trkpt lat=\"")
        line.appendFixed(latitude, decimals: 9)
        line.append("\" lon=\"")
        line.appendFixed(longitude, decimals: 9)
        line.append("\">")
        if let elevation {
            line.append("<ele>")
            line.appendFixed(elevation, decimals: 3)
            line.append("</ele>")
        }
        line.append("<time>")
        line.append(time)
        line.append("</time><fix>")
        line.append(fixType)
        line.append("</fix>")
        if let horizontalError {
            line.append("<extensions><loctrack:eph>")
            line.appendFixed(horizontalError, decimals: 3)
            line.append("</loctrack:eph></extensions>")
        }
        line.append("</trkpt>\n")
    }

    /// The next fix starts a new segment (closed there, so no segment is ever empty).
    package mutating func breakTrack() {
        breakRequested = true
    }

    package mutating func end() -> String {
        var text = segmentOpen ? Self.segmentEnd : ""
        segmentOpen = false
        text += Self.documentEnd
        return text
    }

    package static func fixType(_ fix: Fix) -> StaticString {
        fixType(mode: fix.mode, status: fix.status)
    }

    /// GPX's `<fix>`: `dgps` for gpsd's DGPS status, else `2d` or `3d`.
    package static func fixType(mode: Fix.Mode, status: Fix.Status) -> StaticString {
        if status == .dgps { return "dgps" }
        return mode == .threeD ? "3d" : "2d"
    }
}
