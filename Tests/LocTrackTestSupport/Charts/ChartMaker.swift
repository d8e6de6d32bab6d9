package import Foundation


/// MBTiles files for the tests, made by SQLite's own tool (`sqlite3`, Debian's sqlite3), so
/// that what is read was written by SQLite and not by the code under test.
///
/// Each tile's bytes name where it is in XYZ terms: a PNG signature, then `z/x/y`. Stored at
/// the TMS row, so a reader that forgets to flip the row serves another tile's name.
package struct ChartMaker {
    package let folder: URL

    package init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("loctrack-charts-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    package static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The bytes of the tile at XYZ `z/x/y`.
    package static func tileBytes(_ z: Int, _ x: Int, _ y: Int, signature: [UInt8] = pngSignature) -> [UInt8] {
        signature + Array("tile \(z)/\(x)/\(y)".utf8)
    }

    /// Every tile of zooms `zooms`, as (z, x, y) in XYZ order.
    package static func everyTile(_ zooms: ClosedRange<Int>) -> [(Int, Int, Int)] {
        zooms.flatMap { z in (0..<(1 << z)).flatMap { x in (0..<(1 << z)).map { y in (z, x, y) } } }
    }

    /// Runs `sql` on a new file `name` with the sqlite3 tool; the file's path.
    @discardableResult
    package func database(_ name: String, sql: String) async throws -> String {
        let path = folder.appendingPathComponent(name).path
        let script = folder.appendingPathComponent(name + ".sql").path
        try sql.write(toFile: script, atomically: true, encoding: .utf8)
        let process = try ChildProcess(
            executable: "/usr/bin/sqlite3", arguments: ["sqlite3", "-bail", path, ".read \(script)"],
            stdin: .null, stdout: .pipe, stderr: .pipe)
        let result = try await process.result(timeLimit: .seconds(30))
        guard result.status == .exited(0) else { throw HarnessError("sqlite3 \(result.status): \(result.stderr)") }
        return path
    }

    /// An MBTiles file: `metadata` rows, and the tiles given in XYZ terms stored at TMS rows.
    @discardableResult
    package func chart(
        _ name: String, metadata: [(String, String)], tiles: [(Int, Int, Int)],
        bytes: (Int, Int, Int) -> [UInt8] = { tileBytes($0, $1, $2) }
    ) async throws -> String {
        var sql = """
            BEGIN;
            CREATE TABLE metadata (name TEXT, value TEXT);
            CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
            CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);

            """
        for (key, value) in metadata { sql += "INSERT INTO metadata VALUES (\(Self.quoted(key)), \(Self.quoted(value)));\n" }
        for (z, x, y) in tiles {
            sql += "INSERT INTO tiles VALUES (\(z), \(x), \((1 << z) - 1 - y), X'\(Self.hex(bytes(z, x, y)))');\n"
        }
        return try await database(name, sql: sql + "COMMIT;\n")
    }

    /// As mbutil writes: `tiles` a view over `map` (positions) and `images` (each image once).
    @discardableResult
    package func deduplicatedChart(_ name: String, tiles: [(Int, Int, Int)], sharedImage: [UInt8]) async throws -> String {
        var sql = """
            BEGIN;
            CREATE TABLE metadata (name TEXT, value TEXT);
            CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
            CREATE TABLE images (tile_data BLOB, tile_id TEXT);
            CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
            CREATE UNIQUE INDEX images_id ON images (tile_id);
            CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
                map.tile_row AS tile_row, images.tile_data AS tile_data
                FROM map JOIN images ON images.tile_id = map.tile_id;
            INSERT INTO metadata VALUES ('format', 'png');
            INSERT INTO images VALUES (X'\(Self.hex(sharedImage))', 'shared');

            """
        for (z, x, y) in tiles { sql += "INSERT INTO map VALUES (\(z), \(x), \((1 << z) - 1 - y), 'shared');\n" }
        return try await database(name, sql: sql + "COMMIT;\n")
    }

    package func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    package func remove() { try? FileManager.default.removeItem(at: folder) }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
}
