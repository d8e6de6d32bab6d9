import Foundation
import LocTrackTestSupport
import LocTrackCharts
import Testing

/// Files that cannot be served: one line each and its exit code, before anything is served.
@Suite(.timeLimit(.minutes(1))) struct ChartFileErrorTests {
    private func refusal(_ paths: [String]) -> ChartFileError? {
        do {
            _ = try ChartLibrary(paths: paths)
            return nil
        } catch {
            return error
        }
    }

    @Test func givenAMissingFileWhenOpenedThenItIs66() throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let error = try #require(refusal([maker.path("nowhere.mbtiles")]))
        #expect(error.exitCode == 66)
        #expect(error.description == "--tiles-file \(maker.path("nowhere.mbtiles")): cannot be read: No such file or directory")
    }

    @Test func givenAFolderWhenOpenedThenItIs66() throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let error = try #require(refusal([maker.folder.path]))
        #expect(error.exitCode == 66)
        #expect(error.reason == "is a folder, not an MBTiles file")
    }

    @Test func givenATextFileWhenOpenedThenItIsNotSQLiteAnd65() throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let path = maker.path("notes.mbtiles")
        try "these are not tiles\n".write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(refusal([path]))
        #expect(error.exitCode == 65)
        #expect(error.reason == "is not an SQLite database (an MBTiles file is one)")
    }

    @Test func givenADatabaseWithoutTilesWhenOpenedThenItIs65() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let path = try await maker.database("other.db", sql: "CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE places (name TEXT);")
        let error = try #require(refusal([path]))
        #expect(error.exitCode == 65)
        #expect(error.reason == "has no tiles table (zoom_level, tile_column, tile_row, tile_data): not an MBTiles file")
    }

    @Test func givenAnEmptyTilesTableWhenOpenedThenItIs65() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let path = try await maker.chart("empty.mbtiles", metadata: [("format", "png")], tiles: [])
        #expect(refusal([path])?.reason == "holds no tiles")
    }

    @Test("given vector tiles, declared or gzip, when opened then it is 65 and asks for raster tiles", arguments: [
        [("format", "pbf")], [],
    ])
    func vector(metadata: [(String, String)]) async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let path = try await maker.chart("vector.mbtiles", metadata: metadata, tiles: [(0, 0, 0)]) { _, _, _ in
            [0x1F, 0x8B, 0x08, 0x00, 0x00]
        }
        let error = try #require(refusal([path]))
        #expect(error.exitCode == 65)
        #expect(error.reason == "holds vector tiles (pbf); loctrack serve draws raster tiles: PNG, JPEG or WebP")
    }

    @Test func givenAnotherFormatWhenOpenedThenItIs65() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let path = try await maker.chart("tiff.mbtiles", metadata: [("format", "tiff")], tiles: [(0, 0, 0)])
        #expect(refusal([path])?.reason == "its format is tiff; loctrack serve draws raster tiles: PNG, JPEG or WebP")
    }

    @Test func givenAGoodFileThenABadOneWhenOpenedThenTheBadOneIsNamed() async throws {
        let maker = try ChartMaker()
        defer { maker.remove() }
        let good = try await maker.chart("good.mbtiles", metadata: [("format", "png")], tiles: [(0, 0, 0)])
        let error = try #require(refusal([good, maker.path("gone.mbtiles")]))
        #expect(error.path == maker.path("gone.mbtiles"))
    }
}
