import LocTrackCharts
import LocTrackTestSupport
import Testing

/// Charts made by sqlite3, opened and read as the server does: every tile at its XYZ address,
/// the layers' metadata, what is absent without a read.
@Suite(.timeLimit(.minutes(1))) struct ChartLibraryTests {
    @Test func givenAChartOfThreeZoomsWhenEveryTileIsAskedByXYZThenEachIsTheOneStoredAtItsTMSRow() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let tiles = ChartMaker.everyTile(0...3)
        let path = try await maker.chart("base.mbtiles", metadata: [("format", "png"), ("minzoom", "0"), ("maxzoom", "3")], tiles: tiles)
        let charts = try ChartLibrary(paths: [path])
        defer { charts.close() }
        for (z, x, y) in tiles {
            let lookup = await charts.tile(at: TileAddress(layer: 1, zoom: z, column: x, row: y, fileExtension: "png"))
            guard case .found(let tile) = lookup else {
                Issue.record("\(z)/\(x)/\(y): \(lookup)")
                continue
            }
            #expect(tile.bytes == ChartMaker.tileBytes(z, x, y), "\(z)/\(x)/\(y)")
            #expect(tile.contentType == "image/png")
        }
        #expect(tiles.count == 85)
    }

    @Test func givenTheMetadataWhenOpenedThenTheLayerSaysItAsText() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let path = try await maker.chart("harbour.mbtiles", metadata: [
            ("name", "Harbour <b>chart</b>"), ("format", "png"), ("minzoom", "1"), ("maxzoom", "2"),
            ("bounds", "-4.6,48.3,-4.4,48.4"), ("center", "-4.5,48.35,2"), ("type", "baselayer"),
            ("attribution", #"<a href="https://example.org/">&copy; SHOM</a> &amp; <script>x</script>  others"#),
        ], tiles: [(1, 0, 0), (2, 1, 1)])
        let layer = try #require(try ChartLibrary(paths: [path]).layers.first)
        #expect(layer.number == 1)
        #expect(layer.name == "Harbour chart")
        #expect(layer.attribution == "© SHOM & x others")
        #expect(layer.format == "png")
        #expect(layer.minZoom == 1 && layer.maxZoom == 2)
        #expect(layer.bounds == ChartBounds(west: -4.6, south: 48.3, east: -4.4, north: 48.4))
        #expect(layer.center?.longitude == -4.5 && layer.center?.latitude == 48.35 && layer.center?.zoom == 2)
        #expect(!layer.isOverlay)
        #expect(layer.urlTemplate == "/tiles/1/{z}/{x}/{y}.png")
        #expect(layer.fileTag.count == 16)
    }

    @Test func givenNoMetadataWhenOpenedThenNameZoomsAndFormatComeFromTheFileAndLaterFilesAreOverlays() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let bare = try await maker.database("bare.mbtiles", sql: """
            CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
            INSERT INTO tiles VALUES (3, 1, 1, X'FFD8FFE000104A464946');
            INSERT INTO tiles VALUES (5, 2, 2, X'FFD8FFE000104A464946');
            """)
        let seamarks = try await maker.chart("seamarks.mbtiles", metadata: [("format", "png")], tiles: [(0, 0, 0)])
        let overBase = try await maker.chart("base2.mbtiles", metadata: [("format", "png"), ("type", "baselayer")], tiles: [(0, 0, 0)])
        let charts = try ChartLibrary(paths: [bare, seamarks, overBase])
        #expect(charts.layers.map(\.name) == ["bare", "seamarks", "base2"])
        #expect(charts.layers.map(\.isOverlay) == [false, true, false])
        #expect(charts.layers.map(\.number) == [1, 2, 3])
        #expect(charts.layers[0].format == "jpg")
        #expect(charts.layers[0].minZoom == 3 && charts.layers[0].maxZoom == 5)
        #expect(charts.layers[0].bounds == .world)
        #expect(charts.layers[0].center == nil)
        let tile = await charts.tile(at: TileAddress(layer: 1, zoom: 3, column: 1, row: 6, fileExtension: "jpg"))
        guard case .found(let data) = tile else {
            Issue.record("\(tile)")
            return
        }
        #expect(data.contentType == "image/jpeg")
    }

    @Test func givenMbutilsDeduplicatedLayoutWhenAskedThenTheSharedImageIsServedAtEachPosition() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let image = ChartMaker.pngSignature + Array("sea".utf8)
        let path = try await maker.deduplicatedChart("mbutil.mbtiles", tiles: [(1, 0, 0), (1, 1, 1)], sharedImage: image)
        let charts = try ChartLibrary(paths: [path])
        for (x, y) in [(0, 0), (1, 1)] {
            let lookup = await charts.tile(at: TileAddress(layer: 1, zoom: 1, column: x, row: y, fileExtension: "png"))
            guard case .found(let data) = lookup else {
                Issue.record("1/\(x)/\(y): \(lookup)")
                continue
            }
            #expect(data.bytes == image)
        }
        let missing = await charts.tile(at: TileAddress(layer: 1, zoom: 1, column: 1, row: 0, fileExtension: "png"))
        guard case .absent = missing else {
            Issue.record("\(missing)")
            return
        }
    }

    @Test func givenTilesTheLayerCannotHoldWhenAskedThenTheyAreAbsent() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let path = try await maker.chart("small.mbtiles", metadata: [
            ("format", "png"), ("minzoom", "2"), ("maxzoom", "3"), ("bounds", "0,0,90,60"),
        ], tiles: ChartMaker.everyTile(2...3))
        let charts = try ChartLibrary(paths: [path])
        let layer = try #require(charts.layer(1))
        let inside = TileAddress(layer: 1, zoom: 2, column: 2, row: 1, fileExtension: "png")
        #expect(layer.mayHold(inside))
        for address in [
            TileAddress(layer: 1, zoom: 1, column: 1, row: 0, fileExtension: "png"),  // below minzoom
            TileAddress(layer: 1, zoom: 4, column: 8, row: 7, fileExtension: "png"),  // above maxzoom
            TileAddress(layer: 1, zoom: 2, column: 4, row: 1, fileExtension: "png"),  // off the grid
            TileAddress(layer: 1, zoom: 2, column: 2, row: 4, fileExtension: "png"),  // off the grid
            TileAddress(layer: 1, zoom: 2, column: 0, row: 1, fileExtension: "png"),  // west of the bounds
            TileAddress(layer: 1, zoom: 2, column: 2, row: 3, fileExtension: "png"),  // south of them
            TileAddress(layer: 1, zoom: 2, column: 2, row: 1, fileExtension: "jpg"),  // another format
            TileAddress(layer: 2, zoom: 2, column: 2, row: 1, fileExtension: "png"),  // no layer 2
        ] {
            #expect(!(charts.layer(address.layer)?.mayHold(address) ?? false), "\(address)")
            let lookup = await charts.tile(at: address)
            guard case .absent = lookup else {
                Issue.record("\(address): \(lookup)")
                continue
            }
        }
    }
}
