@testable import LocTrack
@testable import LocTrackMonitor
import Testing

@Suite("GeoJSON regions: documents to conditions and back", .timeLimit(.minutes(1)))
struct GeoJSONRegionsTests {
    static let square = "[[[13.0,52.0],[13.1,52.0],[13.1,52.1],[13.0,52.1],[13.0,52.0]]]"
    static let squareRing = [(13.0, 52.0), (13.1, 52.0), (13.1, 52.1), (13.0, 52.1), (13.0, 52.0)].map(point)

    static func point(_ position: (longitude: Double, latitude: Double)) -> GeoPoint {
        GeoPoint(unchecked: position.latitude, position.longitude)
    }

    static func regions(_ text: String) throws(GeofenceError) -> [GeoJSONRegion] {
        try GeoJSONRegions.conditions(in: Array(text.utf8))
    }

    static func error(_ text: String) -> GeofenceError? {
        do {
            _ = try regions(text)
            return nil
        } catch {
            return error
        }
    }

    static func feature(_ geometry: String, properties: String = "null", extra: String = "") -> String {
        #"{"type":"Feature"\#(extra),"properties":\#(properties),"geometry":\#(geometry)}"#
    }

    @Test("given a Feature with a Polygon and a string properties.id when read then one region with that id")
    func featurePolygon() throws {
        let regions = try Self.regions(Self.feature(#"{"type":"Polygon","coordinates":\#(Self.square)}"#, properties: #"{"id":"home","name":"x"}"#))
        let expected = try GeofenceCondition.polygons([GeoPolygon(exterior: Self.squareRing)])
        #expect(regions == [GeoJSONRegion(identifier: "home", condition: expected, title: "x")])
    }

    @Test("given identifiers in properties.id and the Feature's id when read then properties.id wins, numbers become text",
          arguments: [
            (#"{"id":"p"}"#, #","id":"top""#, "p"),
            (#"{"id":7}"#, "", "7"),
            (#"{"id":2.5}"#, "", "2.5"),
            (#"{"id":{"no":1}}"#, #","id":"top""#, "top"),
            ("null", #","id":12"#, "12"),
            (#"{"name":"x"}"#, "", nil),
            ("null", #","id":true"#, nil),
          ] as [(String, String, String?)])
    func identifiers(properties: String, extra: String, expected: String?) throws {
        let text = Self.feature(#"{"type":"Polygon","coordinates":\#(Self.square)}"#, properties: properties, extra: extra)
        #expect(try Self.regions(text).map(\.identifier) == [expected])
    }

    @Test("given a FeatureCollection when read then every feature in order, a Point with radius as a circle")
    func featureCollection() throws {
        let text = #"""
        {"type":"FeatureCollection","features":[
          {"type":"Feature","id":"b","properties":{},"geometry":{"type":"Polygon","coordinates":\#(Self.square)}},
          {"type":"Feature","properties":{"id":"a","radius":150},"geometry":{"type":"Point","coordinates":[13.4,52.5,34.0]}}
        ]}
        """#
        let regions = try Self.regions(text)
        #expect(regions.map(\.identifier) == ["b", "a"])
        #expect(regions[1].condition == (try .circle(center: GeoPoint(latitude: 52.5, longitude: 13.4), radius: 150)))
    }

    @Test("given a MultiPolygon with a hole when read then both polygons, the hole kept, altitudes ignored")
    func multiPolygonWithHole() throws {
        let hole = "[[13.02,52.02,5],[13.08,52.02,5],[13.08,52.08,5],[13.02,52.02,5]]"
        let text = #"{"type":"MultiPolygon","coordinates":[\#(Self.square),[[[0,0],[1,0],[1,1],[0,0]],\#(hole)]]}"#
        let regions = try Self.regions(text)
        let first = try GeoPolygon(exterior: Self.squareRing)
        let second = try GeoPolygon(
            exterior: [(0, 0), (1, 0), (1, 1), (0, 0)].map(Self.point),
            holes: [[(13.02, 52.02), (13.08, 52.02), (13.08, 52.08), (13.02, 52.02)].map(Self.point)])
        #expect(regions == [GeoJSONRegion(identifier: nil, condition: try .polygons([first, second]))])
    }

    @Test("given a bare Polygon when read then one region without identifier")
    func barePolygon() throws {
        let regions = try Self.regions(#"{"type":"Polygon","coordinates":\#(Self.square)}"#)
        #expect(regions == [GeoJSONRegion(identifier: nil, condition: try .polygons([GeoPolygon(exterior: Self.squareRing)]))])
    }

    @Test("given documents that are not regions when read then one line says what is wrong and where",
          arguments: [
            (#"{"type":"FeatureCollection","features":[\#(feature(#"{"type":"Polygon","coordinates":\#(square)}"#)),\#(feature(#"{"type":"Polygon","coordinates":\#(square)}"#)),\#(feature(#"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#))]}"#,
             "feature 3: a LineString is not a region; expected Polygon or MultiPolygon"),
            (feature(#"{"type":"Point","coordinates":[13,52]}"#),
             "a Point is a region only with a radius: expected a positive number \"radius\" (metres) in the Feature's properties"),
            (feature(#"{"type":"Point","coordinates":[13,52]}"#, properties: #"{"radius":-5}"#),
             "invalid radius -5.0: expected a positive number of metres"),
            (feature(#"{"type":"Point","coordinates":[13,52]}"#, properties: #"{"radius":"50"}"#),
             "expected \"radius\" to be a number of metres, found a string"),
            (feature(#"{"type":"Polygon"}"#), "a Polygon without \"coordinates\""),
            (feature("null"), "a Feature without a geometry is not a region"),
            (#"{"type":"Polygon","coordinates":[[13,52],[14,52],[14,53],[13,52]]}"#,
             "ring 1, position 1: expected a position [longitude, latitude], found a number"),
            (#"{"type":"Polygon","coordinates":[[[13,52],["14",52],[14,53],[13,52]]]}"#,
             "ring 1, position 2: expected numbers in a position, found a string"),
            (#"{"type":"Polygon","coordinates":[[[13,52],[14],[14,53],[13,52]]]}"#,
             "ring 1, position 2: expected a position of 2 or 3 numbers [longitude, latitude, altitude?], found 1 elements"),
            (#"{"type":"MultiPolygon","coordinates":[\#(square),[[[13,52],[14,52],[14,95],[13,52]]]]}"#,
             "polygon 2, ring 1, position 3: invalid latitude 95.0: expected a number of degrees from -90 to 90 (GeoJSON positions are [longitude, latitude])"),
            (#"{"type":"Polygon","coordinates":[[[52,13],[52,14],[53,14],[52,13]]],"x":[[[1,2]]]}"#, nil),
            (#"{"type":"Polygon","coordinates":[[[13,100],[14,100],[14,101],[13,100]]]}"#,
             "ring 1, position 1: invalid latitude 100.0: expected a number of degrees from -90 to 90 (GeoJSON positions are [longitude, latitude])"),
            (#"{"type":"Polygon","coordinates":[[[190,50],[14,52],[14,53],[190,50]]]}"#,
             "ring 1, position 1: invalid longitude 190.0: expected a number of degrees from -180 to 180"),
            (#"{"type":"Polygon","coordinates":[\#(square.dropFirst().dropLast()),[[1,1],[2,1],[2,2],[1,2]]]}"#,
             "ring 2: a polygon ring must end where it starts"),
            (#"{"type":"Polygon","coordinates":[[[13,52],[14,52],[13,52]]]}"#,
             "ring 1: a polygon ring needs at least 4 positions (got 3)"),
            (#"{"type":"Polygon","coordinates":[]}"#, "a polygon needs at least its exterior ring"),
            (#"{"type":"MultiPolygon","coordinates":[]}"#, "a MultiPolygon needs at least one polygon"),
            (#"{"type":"FeatureCollection","features":[]}"#, "the FeatureCollection has no features, so no region"),
            (#"{"type":"FeatureCollection","features":[{"type":"Polygon","coordinates":\#(square)}]}"#,
             "feature 1: expected a Feature, found a Polygon"),
            (#"{"type":"GeometryCollection","geometries":[]}"#, "a GeometryCollection is not a region; expected Polygon or MultiPolygon"),
            (#"{"type":"Circle","coordinates":[1,2]}"#, "unknown geometry type \"Circle\"; expected Polygon or MultiPolygon"),
            (#"{"coordinates":[1,2]}"#, "expected a GeoJSON object with a \"type\" member"),
            (#"[1,2]"#, "expected a GeoJSON object, found an array"),
            (#"{"type":"Feature","geometry":{"type":"Polygon","coordinates":\#(square)},}"#,
             "invalid JSON at byte 126: expected a member name in double quotes after ',', found '}' (a trailing comma is not JSON)"),
          ] as [(String, String?)])
    func errors(text: String, message: String?) {
        #expect(Self.error(text) == message.map(GeofenceError.invalidGeometry))
    }

    @Test("given a circle when written as GeoJSON then a Point with a radius member, read back the same")
    func circleGeometry() throws {
        let circle = try GeofenceCondition.circle(center: GeoPoint(latitude: 52.5, longitude: 13.4), radius: 150.5)
        #expect(circle.geoJSONGeometry.serialized == #"{"type":"Point","coordinates":[13.4,52.5],"radius":150.5}"#)
        #expect(try GeofenceCondition(geoJSONGeometry: circle.geoJSONGeometry) == circle)
        // What loctrack writes is also a document it reads, as a bare geometry.
        #expect(try Self.regions(circle.geoJSONGeometry.serialized) == [GeoJSONRegion(identifier: nil, condition: circle)])
    }

    @Test("given polygons when written as GeoJSON then one is a Polygon, several a MultiPolygon, read back the same")
    func polygonGeometry() throws {
        let one = try GeofenceCondition.polygons([GeoPolygon(exterior: Self.squareRing)])
        #expect(one.geoJSONGeometry.serialized == #"{"type":"Polygon","coordinates":\#(Self.square)}"#.replacingZeroFractions())
        #expect(try GeofenceCondition(geoJSONGeometry: one.geoJSONGeometry) == one)
        let holed = try GeoPolygon(exterior: [(0, 0), (2, 0), (2, 2), (0, 0)].map(Self.point),
                                   holes: [[(0.5, 0.2), (1, 0.2), (1, 0.4), (0.5, 0.2)].map(Self.point)])
        let two = try GeofenceCondition.polygons([GeoPolygon(exterior: Self.squareRing), holed])
        #expect(two.geoJSONGeometry["type"] == "MultiPolygon")
        #expect(two.geoJSONGeometry["coordinates"]?.arrayValue?.count == 2)
        #expect(try GeofenceCondition(geoJSONGeometry: two.geoJSONGeometry) == two)
    }

    @Test("given a stored geometry that is not a region when read back then it throws")
    func storedFormStrict() {
        #expect(throws: GeofenceError.invalidGeometry("a LineString is not a region; expected Polygon or MultiPolygon")) {
            try GeofenceCondition(geoJSONGeometry: ["type": "LineString", "coordinates": [[0, 0], [1, 1]]])
        }
    }
}

extension String {
    /// `13.0` → `13`: how the JSON writer prints whole numbers.
    fileprivate func replacingZeroFractions() -> String {
        var result = ""
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(".0"), self[self.index(index, offsetBy: 2)...].first.map({ !$0.isNumber }) ?? true {
                index = self.index(index, offsetBy: 2)
                continue
            }
            result.append(self[index])
            index = self.index(after: index)
        }
        return result
    }
}
