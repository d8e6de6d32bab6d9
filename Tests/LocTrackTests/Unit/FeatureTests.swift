import Foundation
import FoundationXML
@testable import LocTrack
@testable import LocTrackMonitor
@testable import LocTrackCLI
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// Metres per degree of latitude on loctrack's sphere.
private let metresPerDegree = 6_371_008.8 * Double.pi / 180

private func fix(
    _ second: Double, north metres: Double = 0, eph: Double? = 5, speed: Double? = nil, device: String = "/dev/a",
    altitude: Double? = 100
) -> Fix {
    Fix(time: Timestamp(seconds: 1_800_000_000 + Int64(second), nanoseconds: Int32((second.truncatingRemainder(dividingBy: 1)) * 1e9)),
        mode: .threeD, device: device, latitude: 47 + metres / metresPerDegree, longitude: 8,
        altitudeHAE: altitude, altitudeMSL: altitude.map { $0 - 48 }, horizontalError: eph, speed: speed)
}

@Suite("Stream filters: accuracy, then distance, then interval", .timeLimit(.minutes(1)))
struct FixFilterTests {
    @Test("given fixes 1 m apart when the minimum distance is 2.5 m then drift adds up from the last delivered fix")
    func distanceFromLastDelivered() {
        var filter = FixFilter(minimumDistance: 2.5)
        let delivered = (0..<8).map { fix(Double($0), north: Double($0)) }.filter { filter.accept($0) }
        #expect(delivered.map { Int($0.time.seconds - 1_800_000_000) } == [0, 3, 6])
    }

    @Test("given fixes every 0.2 s when the interval is 1 s then the first of each second is delivered")
    func interval() {
        var filter = FixFilter(intervalSeconds: 1)
        let delivered = (0..<12).map { fix(Double($0) * 0.2) }.filter { filter.accept($0) }
        #expect(delivered.map(\.time.iso8601) == [
            "2027-01-15T08:00:00.000Z", "2027-01-15T08:00:01.000Z", "2027-01-15T08:00:02.000Z",
        ])
    }

    @Test("given a fix that fails accuracy when filtered then it does not become the distance reference")
    func failedFixIsNotTheReference() {
        var filter = FixFilter(minimumAccuracy: 10, minimumDistance: 5)
        // At 1 s: inaccurate, dropped. At 2 s: 3 m from the last *delivered* fix, dropped.
        let decisions = [fix(0, north: 0), fix(1, north: 100, eph: 50), fix(2, north: 3), fix(3, north: 6)]
            .map { filter.accept($0) }
        #expect(decisions == [true, false, false, true])
    }

    @Test("given two points 1 km apart along a meridian when measured then the distance is 1 km")
    func distance() {
        #expect(abs(fix(0).distance(to: fix(1, north: 1000)) - 1000) < 0.001)
    }
}

@Suite("Stationary fixes", .timeLimit(.minutes(1)))
struct StationaryDetectorTests {
    @Test("given a receiver within its error estimate for 3 s when marked then the fixes from 3 s on are stationary")
    func stillReceiver() {
        var detector = StationaryDetector()
        let marks = (0..<6).map { detector.mark(fix(Double($0), north: Double($0 % 2) * 2, eph: 5)).isStationary }
        #expect(marks == [false, false, false, true, true, true])
    }

    @Test("given a receiver moving beyond its error estimate when marked then no fix is stationary")
    func movingReceiver() {
        var detector = StationaryDetector()
        let marks = (0..<6).map { detector.mark(fix(Double($0), north: Double($0) * 6, eph: 5)).isStationary }
        #expect(marks.allSatisfy { !$0 })
    }

    @Test("given a reported speed of a walk when marked then the fix is not stationary even within the error")
    func speedMeansMoving() {
        var detector = StationaryDetector()
        let marks = (0..<6).map { detector.mark(fix(Double($0), north: Double($0), eph: 20, speed: 1.4)).isStationary }
        #expect(marks.allSatisfy { !$0 })
    }
}

@Suite("Output formats", .timeLimit(.minutes(1)))
struct EncoderTests {
    static func render(_ format: OutputFormat, _ fixes: [Fix], breakAfter: Int? = nil) -> String {
        var encoder = format.makeEncoder()
        var text = encoder.begin()
        for (index, fix) in fixes.enumerated() {
            text += encoder.encode(fix)
            if index == breakAfter { encoder.breakTrack() }
        }
        return text + encoder.end()
    }

    @Test("given fixes when written as CSV then a header and one RFC 4180 row each, empty cells for unknowns")
    func csv() {
        let text = Self.render(.csv, [fix(0), fix(1, eph: nil, device: "/dev/a,\"b\"", altitude: nil)])
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines[0] == "time,device,mode,status,lat,lon,altHAE,altMSL,eph,epx,epy,epv,speed,track,climb,stationary")
        #expect(lines[1] == "2027-01-15T08:00:00.000Z,/dev/a,3,1,47.000000000,8.000000000,100.0000,52.0000,5.000,,,,,,,false")
        #expect(lines[2] == "2027-01-15T08:00:01.000Z,\"/dev/a,\"\"b\"\"\",3,1,47.000000000,8.000000000,,,,,,,,,,false")
        #expect(lines.count == 4 && lines[3].isEmpty)
    }

    @Test("given a gap of 11 s and a loss of fix when written as GPX then there are three segments in one track")
    func gpxSegments() throws {
        let fixes = [fix(0), fix(1), fix(12), fix(13), fix(14)]
        let text = Self.render(.gpx, fixes, breakAfter: 3)
        #expect(text.components(separatedBy: "<trkseg>").count - 1 == 3)
        #expect(text.components(separatedBy: "<trk>").count - 1 == 1)
        #expect(!text.contains("hdop"))
        #expect(text.contains("<trkpt lat=\"47.000000000\" lon=\"8.000000000\"><ele>52.000</ele><time>2027-01-15T08:00:00.000Z</time><fix>3d</fix><extensions><loctrack:eph>5.000</loctrack:eph></extensions></trkpt>"))
        let parser = XMLParser(data: Data(text.utf8))
        #expect(parser.parse(), "GPX is not well-formed XML: \(String(describing: parser.parserError))")
    }

    @Test("given no fixes when GPX is ended then the document is still complete")
    func emptyGPX() {
        let text = Self.render(.gpx, [])
        #expect(XMLParser(data: Data(text.utf8)).parse())
        #expect(text.hasSuffix("  </trk>\n</gpx>\n"))
    }

    @Test("given a fix when written as GeoJSON then it is a Point feature at [lon, lat, HAE] with the fix's fields")
    func geojson() throws {
        let line = Self.render(.geojson, [fix(0)])
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "Feature")
        let geometry = try #require(object["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [8, 47, 100])
        let properties = try #require(object["properties"] as? [String: Any])
        #expect(properties["eph"] as? Double == 5)
        #expect(properties["time"] as? String == "2027-01-15T08:00:00.000Z")
    }
}
