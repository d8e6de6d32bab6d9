import LocTrack
@testable import LocTrackFormats
@testable import LocTrackWeb
import Testing

@Suite("Track formats: points, GeoJSON, GPX")
struct TrackFormatsTests {
    static let points = [
        PackedTrackPoint(time: 1_795_507_201_000, latitude: 47.376621, longitude: 8.541733, horizontalError: 4.2, altitudeMSL: 410.5, altitudeHAE: 458),
        PackedTrackPoint(time: 1_795_507_202_500, latitude: 47.3766, longitude: 8.5418, altitudeHAE: 459, isDGPS: true),
    ]

    @Test("given two points when written as points then each is [ms, lat, lon, eph] with null for no eph")
    func pointsJSON() {
        let body = TrackPointsJSON.encode(Self.points, kept: [0, 1], lastEventID: EventID(run: "5f3a9c", sequence: 1042))
        #expect(String(decoding: body, as: UTF8.self) == "{\"lastEventId\":\"5f3a9c-1042\",\"total\":2,\"points\":["
            + "[1795507201000,47.3766210,8.5417330,4.200],[1795507202500,47.3766000,8.5418000,null]]}")
    }

    @Test("given a thinned selection when written as points then only those are written, and total counts them all")
    func pointsThinned() {
        let body = TrackPointsJSON.encode(Self.points, kept: [1], lastEventID: EventID(run: "a", sequence: 0))
        #expect(String(decoding: body, as: UTF8.self) == "{\"lastEventId\":\"a-0\",\"total\":2,\"points\":[[1795507202500,47.3766000,8.5418000,null]]}")
    }

    @Test("given two points with heights when written as GeoJSON then one LineString Feature with [lon, lat, altHAE] and the times")
    func geoJSON() {
        #expect(String(decoding: TrackGeoJSON.encode(Self.points), as: UTF8.self)
            == "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":"
            + "[[8.541733000,47.376621000,458.000],[8.541800000,47.376600000,459.000]]},\"properties\":{\"coordTimes\":"
            + "[\"2026-11-24T08:00:01.000Z\",\"2026-11-24T08:00:02.500Z\"],\"eph\":[4.200,null]}}]}\n")
    }

    @Test("given one point without height or none at all when written as GeoJSON then a Point, or no feature")
    func geoJSONEdges() {
        let one = PackedTrackPoint(time: 0, latitude: 1, longitude: 2)
        #expect(String(decoding: TrackGeoJSON.encode([one]), as: UTF8.self)
            == "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":"
            + "[2.000000000,1.000000000]},\"properties\":{\"coordTimes\":[\"1970-01-01T00:00:00.000Z\"],\"eph\":[null]}}]}\n")
        #expect(String(decoding: TrackGeoJSON.encode([]), as: UTF8.self) == "{\"type\":\"FeatureCollection\",\"features\":[]}")
    }

    @Test("given two points when written as GPX then stream's GPX: header, one segment, <trkpt> lines with ele, time, fix and eph")
    func gpx() {
        let text = String(decoding: TrackGPX.encode(Self.points), as: UTF8.self)
        #expect(text == """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="loctrack" xmlns="http://www.topografix.com/GPX/1/1" xmlns:loctrack="urn:loctrack:gpx:1">
              <trk>
                <name>loctrack</name>
                <trkseg>
                  <trkpt lat="47.376621000" lon="8.541733000"><ele>410.500</ele><time>2026-11-24T08:00:01.000Z</time><fix>3d</fix><extensions><loctrack:eph>4.200</loctrack:eph></extensions></trkpt>
                  <trkpt lat="47.376600000" lon="8.541800000"><ele>459.000</ele><time>2026-11-24T08:00:02.500Z</time><fix>dgps</fix></trkpt>
                </trkseg>
              </trk>
            </gpx>

            """)
    }

    @Test("given fixes when serve writes them as GPX then each <trkpt> line is the one stream --format gpx writes", arguments: [
        TestFixes.fix(second: 1),
        Fix(time: Timestamp(seconds: TestFixes.start, nanoseconds: 123_000_000), mode: .twoD, status: .dgps, latitude: -33.8568,
            longitude: 151.2153, altitudeHAE: 20.25),
        Fix(time: Timestamp(seconds: TestFixes.start), mode: .threeD, latitude: 0, longitude: -0.5, horizontalError: 0.014),
    ])
    func gpxLikeStream(fix: Fix) {
        var encoder = GPXEncoder()
        let stream = encoder.begin() + encoder.encode(fix) + encoder.end()
        #expect(String(decoding: TrackGPX.encode([PackedTrackPoint(fix)]), as: UTF8.self) == stream)
    }

    @Test("given a silence over 10 s, time going back, and a reported break when written as GPX then each starts a segment")
    func gpxSegments() {
        let points = [
            PackedTrackPoint(time: 0, latitude: 1, longitude: 1),
            PackedTrackPoint(time: 10_000, latitude: 1, longitude: 1),  // 10 s: same segment
            PackedTrackPoint(time: 20_001, latitude: 1, longitude: 1),  // over 10 s: new
            PackedTrackPoint(time: 19_000, latitude: 1, longitude: 1),  // back: new
            PackedTrackPoint(time: 20_000, latitude: 1, longitude: 1, startsSegment: true),  // break: new
        ]
        let text = String(decoding: TrackGPX.encode(points), as: UTF8.self)
        #expect(text.components(of: "<trkseg>") == 4)
        #expect(text.components(of: "</trkseg>") == 4)
        #expect(text.components(of: "<fix>2d</fix>") == 0 && text.components(of: "<fix>3d</fix>") == 5)
    }

    @Test("given no points when written as GPX then the document has no segment and is closed")
    func gpxEmpty() {
        let text = String(decoding: TrackGPX.encode([]), as: UTF8.self)
        #expect(text.hasSuffix("    <name>loctrack</name>\n  </trk>\n</gpx>\n"))
        #expect(!text.contains("trkseg"))
    }
}
