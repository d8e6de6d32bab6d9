@testable import LocTrackCLI
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("Recording: where an existing track file is continued", .timeLimit(.minutes(1)))
struct TrackFileLayoutTests {
    private static let gpx = Array((GPXEncoder.header + GPXEncoder.segmentStart
        + "      <trkpt lat=\"1\" lon=\"2\"><time>t</time></trkpt>\n" + GPXEncoder.segmentEnd + GPXEncoder.documentEnd).utf8)
    /// Where the closing tags of ``gpx`` start.
    private static let gpxEnd = Int64(gpx.count - TrackFileLayout.gpxTail.count)

    private func resume(_ layout: TrackFileLayout, _ bytes: [UInt8]) -> TrackFileLayout.Resume {
        layout.resume(size: Int64(bytes.count), head: Array(bytes.prefix(4096)), tail: bytes, tailStart: 0)
    }

    @Test("given a whole loctrack GPX file when continued then writing starts over its closing tags, nothing cut")
    func wholeGPX() {
        #expect(resume(.gpx, Self.gpx) == .at(offset: Self.gpxEnd, cut: 0))
    }

    @Test("given a GPX file whose end was torn or zeroed when continued then writing starts after its last point and the rest is cut")
    func tornGPX() {
        let torn = Array(Self.gpx.dropLast(9))  // "</gpx>\n" and part of "</trk>" gone
        #expect(resume(.gpx, torn) == .at(offset: Self.gpxEnd, cut: Int64(torn.count) - Self.gpxEnd))
        let zeroed = Self.gpx + [UInt8](repeating: 0, count: 100)
        #expect(resume(.gpx, zeroed) == .at(offset: Self.gpxEnd, cut: Int64(zeroed.count) - Self.gpxEnd))
        let halfPoint = Self.gpx + Array("      <trkpt lat=\"3\" lo".utf8)
        #expect(resume(.gpx, halfPoint) == .at(offset: Self.gpxEnd, cut: Int64(halfPoint.count) - Self.gpxEnd))
    }

    @Test("given another tool's GPX closed on one line when continued then nothing is cut")
    func otherWhitespace() {
        let file = Array("<?xml version=\"1.0\"?><gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"></trkpt></trkseg></trk></gpx>".utf8)
        let offset = Int64(file.count - "</trkseg></trk></gpx>".utf8.count)
        #expect(resume(.gpx, file) == .at(offset: offset, cut: 0))
    }

    @Test("given files that are not GPX tracks when continued as GPX then they are refused")
    func notGPX() {
        for text in ["{\"class\":\"TPV\"}\n", "<?xml version=\"1.0\"?><kml></kml>", "<?xml version=\"1.0\"?><gpx><trk></trk></gpx>"] {
            guard case .refused = resume(.gpx, Array(text.utf8)) else {
                Issue.record("not refused: \(text)")
                continue
            }
        }
    }

    @Test("given line files when continued then writing starts after the last whole line and a torn line is cut")
    func lines() {
        let whole = Array("{\"a\":1}\n{\"b\":2}\n".utf8)
        #expect(resume(.lines(header: nil), whole) == .at(offset: 16, cut: 0))
        #expect(resume(.lines(header: nil), whole + Array("{\"c\":".utf8)) == .at(offset: 16, cut: 5))
        #expect(resume(.lines(header: nil), whole + [0, 0, 0]) == .at(offset: 16, cut: 3))
        #expect(resume(.lines(header: nil), Array("{\"c\":".utf8)) == .at(offset: 0, cut: 5))
    }

    @Test("given a CSV file with loctrack's header when continued then it is appended to; with other columns it is refused")
    func csvHeader() {
        let header = Array(CSVEncoder.header.utf8)
        let row = Array("2026-03-01T10:00:00.000Z,,3,1,1,2,,,,,,,,,,false\r\n".utf8)
        #expect(resume(.lines(header: header), header + row) == .at(offset: Int64(header.count + row.count), cut: 0))
        guard case .refused = resume(.lines(header: header), Array("a,b,c\r\n1,2,3\r\n".utf8)) else {
            Issue.record("a CSV file with other columns was not refused")
            return
        }
    }
}
