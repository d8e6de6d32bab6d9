import LocTrack
import LocTrackCharts
import LocTrackFormats
import LocTrackServeOptions
import LocTrackTestSupport
import LocTrackWeb
import Testing

/// `/tiles/N/Z/X/Y.EXT` and `/api/config`'s `layers` (docs/http.md, "Tiles"), over charts
/// made by sqlite3.
@Suite(.timeLimit(.minutes(1))) struct ChartRouteTests {
    /// A base chart of zooms 0 to 2 and an overlay of zoom 1, and the service over them.
    private func withCharts(token: AccessToken? = nil, _ body: (WebService) async throws -> Void) async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let base = try await maker.chart("base.mbtiles", metadata: [
            ("name", "Base"), ("format", "png"), ("minzoom", "0"), ("maxzoom", "2"), ("attribution", "<i>© Base</i>"),
        ], tiles: ChartMaker.everyTile(0...2))
        let overlay = try await maker.chart("marks.mbtiles", metadata: [
            ("format", "png"), ("minzoom", "1"), ("maxzoom", "1"), ("bounds", "0,0,180,85"), ("center", "90,40,1"),
        ], tiles: [(1, 1, 0)])
        let charts = try ChartLibrary(paths: [base, overlay])
        defer { charts.close() }
        try await body(Fixture.service(token: token, charts: charts))
    }

    @Test func givenChartsWhenEveryTileIsAskedThenEachIsItsOwnBytesWithTypeTagAndCaching() async throws {
        try await withCharts { service in
            for (z, x, y) in ChartMaker.everyTile(0...2) {
                let response = await service.respond(to: .get("/tiles/1/\(z)/\(x)/\(y).png"))
                #expect(response.status == 200)
                #expect(response.bytes == ChartMaker.tileBytes(z, x, y), "\(z)/\(x)/\(y)")
                #expect(response.header("Content-Type") == "image/png")
                #expect(response.header("Cache-Control") == "private, max-age=86400")
                let tag = try #require(response.header("ETag"))
                #expect(tag.hasPrefix("\"") && tag.hasSuffix("-\(z)-\(x)-\(y)\""))
                #expect(response.header("Content-Security-Policy") != nil)
            }
            let overlay = await service.respond(to: .get("/tiles/2/1/1/0.png"))
            #expect(overlay.bytes == ChartMaker.tileBytes(1, 1, 0))
        }
    }

    @Test func givenTheTagTheClientHasWhenAskedAgainThen304WithoutABody() async throws {
        try await withCharts { service in
            let first = await service.respond(to: .get("/tiles/1/2/3/1.png"))
            let tag = try #require(first.header("ETag"))
            let again = await service.respond(to: .get("/tiles/1/2/3/1.png", headers: [("If-None-Match", tag)]))
            #expect(again.status == 304)
            #expect(again.bytes == [])
            #expect(again.header("ETag") == tag)
            let other = await service.respond(to: .get("/tiles/1/2/3/2.png", headers: [("If-None-Match", tag)]))
            #expect(other.status == 200)
        }
    }

    @Test("given a well-formed path without a tile when asked then 404 with no body", arguments: [
        "/tiles/1/3/0/0.png", "/tiles/1/2/4/0.png", "/tiles/1/2/0/4.png", "/tiles/1/0/0/0.jpg",
        "/tiles/2/0/0/0.png", "/tiles/2/1/0/0.png", "/tiles/2/1/0/1.png", "/tiles/3/0/0/0.png",
    ])
    func absent(path: String) async throws {
        try await withCharts { service in
            let response = await service.respond(to: .get(path))
            #expect(response.status == 404, "\(path)")
            #expect(response.bytes == [], "\(path)")
        }
    }

    @Test("given a malformed tile path when asked then 400", arguments: [
        "/tiles/1/0/0/00.png", "/tiles/1/0/0/0", "/tiles/x/0/0/0.png", "/tiles/1/31/0/0.png", "/tiles/1/0/0/0.png/",
        "/tiles/1/0%2F0/0.png", "/tiles/1/0/0/0.gif",
    ])
    func malformed(path: String) async throws {
        try await withCharts { service in
            #expect(await service.respond(to: .get(path)).status == 400, "\(path)")
        }
    }

    @Test func givenTheTilesFolderItselfWhenAskedThenItIsNotFound() async throws {
        try await withCharts { service in
            for path in ["/tiles", "/tiles/"] {
                #expect(await service.respond(to: .get(path)).status == 404, "\(path)")
            }
        }
    }

    @Test func givenNoChartsWhenATileIsAskedThen404() async {
        let response = await Fixture.service().respond(to: .get("/tiles/1/0/0/0.png"))
        #expect(response.status == 404)
        #expect(response.bytes == [])
    }

    @Test func givenATokenWhenATileIsAskedWithoutItThen401AndWithItThe200() async throws {
        try await withCharts(token: Fixture.token) { service in
            #expect(await service.respond(to: .get("/tiles/1/0/0/0.png")).status == 401)
            #expect(await service.respond(to: .get("/tiles/1/99/0/0.png")).status == 401)
            let allowed = await service.respond(to: .get("/tiles/1/0/0/0.png", headers: [("Authorization", "Bearer s3cret-Token+/=")]))
            #expect(allowed.status == 200)
        }
    }

    @Test func givenHeadWhenATileIsAskedThenItsHeadersWithoutTheBody() async throws {
        try await withCharts { service in
            let response = await service.respond(to: WebRequest(method: "HEAD", path: "/tiles/1/1/1/1.png"))
            #expect(response.status == 200)
            #expect(response.bytes == [])
            #expect(response.header("Content-Length") == String(ChartMaker.tileBytes(1, 1, 1).count))
        }
    }

    @Test func givenChartsWhenConfigIsAskedThenItListsTheLayersInOrder() async throws {
        try await withCharts { service in
            let response = await service.respond(to: .get("/api/config"))
            let config = try JSONValue(parsing: try #require(response.bytes))
            let layers = try #require(config["layers"]?.arrayValue)
            #expect(layers.count == 2)
            #expect(layers[0]["name"]?.stringValue == "Base")
            #expect(layers[0]["url"]?.stringValue == "/tiles/1/{z}/{x}/{y}.png")
            #expect(layers[0]["format"]?.stringValue == "png")
            #expect(layers[0]["minzoom"]?.integerValue == 0 && layers[0]["maxzoom"]?.integerValue == 2)
            #expect(layers[0]["bounds"]?.arrayValue?.compactMap(\.doubleValue) == [-180, -85.051129, 180, 85.051129])
            #expect(layers[0]["center"] == .null)
            #expect(layers[0]["attribution"]?.stringValue == "© Base")
            #expect(layers[0]["overlay"]?.boolValue == false)
            #expect(layers[1]["name"]?.stringValue == "marks")
            #expect(layers[1]["url"]?.stringValue == "/tiles/2/{z}/{x}/{y}.png")
            #expect(layers[1]["bounds"]?.arrayValue?.compactMap(\.doubleValue) == [0, 0, 180, 85])
            #expect(layers[1]["center"]?.arrayValue?.compactMap(\.doubleValue) == [90, 40, 1])
            #expect(layers[1]["overlay"]?.boolValue == true)
        }
    }

    @Test func givenNoChartsWhenConfigIsAskedThenLayersIsEmpty() async throws {
        let response = await Fixture.service().respond(to: .get("/api/config"))
        let config = try JSONValue(parsing: try #require(response.bytes))
        #expect(config["layers"] == .array([]))
    }
}
