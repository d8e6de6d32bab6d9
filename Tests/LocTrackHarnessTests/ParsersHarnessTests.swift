import Foundation
import LocTrackTestSupport
import Testing

/// The parsers the end-to-end tests read loctrack's output with: they read what is right and
/// reject what is not, so a malformed output fails its test.
@Suite("Parsers: CSV, GPX and JSON read back", .timeLimit(.minutes(1)))
struct ParsersHarnessTests {
    @Test("given RFC 4180 CSV with a quoted comma, quote and line break when parsed then the cells come back exactly, CRLF only")
    func csvReadsQuotedCells() throws {
        let table = try Parsers.csv("a,b\r\n\"x,\"\"y\"\"\",\"1\r\n2\"\r\n,\r\n")
        #expect(table.header == ["a", "b"])
        #expect(table.rows == [["a": #"x,"y""#, "b": "1\r\n2"], ["a": "", "b": ""]])
        #expect(table.crlfOnly)
        #expect(try !Parsers.csv("a,b\r\n1,2\n").crlfOnly, "a bare LF")
    }

    @Test("given malformed CSV (a ragged row, a stray quote, text after a closing quote, an open quote) when parsed then it throws",
          arguments: ["a,b\r\n1\r\n", "a,b\r\n1,x\"y\r\n", "a,b\r\n\"1\"x,2\r\n", "a,b\r\n\"1,2\r\n"])
    func csvRejectsMalformed(_ text: String) {
        #expect(throws: HarnessError.self) { try Parsers.csv(text) }
    }

    @Test("given GPX 1.1 with two segments and loctrack's eph extension when parsed then every point's values come back")
    func gpxReadsPoints() throws {
        let document = try Parsers.gpx("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1" xmlns:l="urn:loctrack:gpx:1">
            <trk><trkseg><trkpt lat="47.5" lon="8.25"><ele>408.5</ele><time>2026-03-01T10:00:00.000Z</time><fix>3d</fix>
            <extensions><l:eph>15.2</l:eph></extensions></trkpt></trkseg>
            <trkseg><trkpt lat="-1" lon="2"><fix>2d</fix></trkpt></trkseg></trk></gpx>
            """)
        #expect(document.root == "{http://www.topografix.com/GPX/1/1}gpx" && document.version == "1.1")
        #expect(document.trackCount == 1 && document.hdopCount == 0)
        #expect(document.segments.map(\.count) == [1, 1])
        let first = document.segments[0][0], second = document.segments[1][0]
        #expect(first.latitude == 47.5 && first.longitude == 8.25 && first.elevation == 408.5 && first.eph == 15.2)
        #expect(first.time == "2026-03-01T10:00:00.000Z" && first.fix == "3d")
        #expect(second.latitude == -1 && second.elevation == nil && second.time == nil && second.fix == "2d")
    }

    @Test("given GPX that is not well-formed (unclosed, mismatched, an unbound prefix, text after the root, a point without lat) when parsed then it throws",
          arguments: [
              #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#,
              #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk></trkseg></gpx>"#,
              #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><l:eph/></gpx>"#,
              #"<gpx xmlns="http://www.topografix.com/GPX/1/1"/>x"#,
              #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lon="1"/></trkseg></trk></gpx>"#,
          ])
    func gpxRejectsMalformed(_ text: String) {
        #expect(throws: HarnessError.self) { try Parsers.gpx(text) }
    }

    @Test("given JSON lines against docs/fix.schema.json when one is right and one breaks every kind of rule then only the second's problems are listed")
    func schemaFindsEachProblem() throws {
        let good = #"{"class":"TPV","mode":3,"time":"2026-03-01T10:00:00.000Z","lat":47.5,"lon":8.25,"status":2,"stationary":false}"#
        let bad = #"{"class":"SKY","mode":1,"time":"10:00","lat":91,"lon":8,"status":2.5,"leapseconds":18.0,"stationary":0,"extra":1,"velN":1}"#
        let problems = try Parsers.schemaProblems(good + "\n" + bad + "\n")
        #expect(problems.allSatisfy { $0.hasPrefix("1: ") }, "\(problems)")
        for expected in ["class=", "mode=", "time=", "lat=", "status=", "stationary=", "extra is not in the schema", "velN without velE", "velN without velD",
                         "leapseconds is not written as an integer"] {
            #expect(problems.contains { $0.contains(expected) }, "\(expected) in \(problems)")
        }
        #expect(problems.count == 11, "\(problems)")
    }

    @Test("given GeoJSON features and JSON lines when a property, a coordinate or the count differs then each is a problem")
    func geoJSONComparesWithTheJSONLines() throws {
        let line = #"{"lat":47.5,"lon":8.25,"altHAE":400,"stationary":true}"#
        let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[8.25,47.5,400]},"properties":\#(line)}"#
        #expect(try Parsers.geoJSONProblems(feature, comparedWith: line).isEmpty)
        let moved = feature.replacingOccurrences(of: "[8.25,", with: "[8.5,")
        let flagged = feature.replacingOccurrences(of: #""stationary":true}}"#, with: #""stationary":1}}"#)
        #expect(try Parsers.geoJSONProblems(moved, comparedWith: line).count == 1)
        #expect(try Parsers.geoJSONProblems(flagged, comparedWith: line).count == 2, "properties differ, no boolean")
        #expect(try Parsers.geoJSONProblems(feature + "\n" + feature, comparedWith: line).count == 1)
    }
}
