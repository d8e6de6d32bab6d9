import LocTrackSystem

/// Opens one `--tiles-file` before anything is served and reads what the page needs to know
/// of it (``ChartLayer``), or says in one line why it cannot be served (``ChartFileError``).
/// Reads the metadata and one tile, never the whole file.
enum ChartFileInspection {
    /// What tiles the server reads: MBTiles 1.3's `tiles`, a table or a view (mbutil's,
    /// over deduplicated `images`).
    static let tileQuery = "SELECT tile_data FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3"

    /// - Parameters:
    ///   - number: the layer's number (from 1).
    ///   - isOverlay: whether it is drawn over the base layers, from the files' `type`
    ///     and their order (``LayerRoles``; the `type` read here is handed to it).
    /// - Returns: the layer, and a warning for stderr when a `-wal` file holds data the
    ///   immutable open does not read.
    static func inspect(
        path: String, number: Int, isOverlay: (_ declaredType: String?) -> Bool
    ) throws(ChartFileError) -> (ChartLayer, warning: String?) {
        let identity = try checkFile(path)
        let database: ReadOnlyDatabase
        do {
            database = try ReadOnlyDatabase(path: path)
        } catch {
            throw .noInput(path, "cannot be opened: \(error)")
        }
        let metadata = try readMetadata(database, path)
        let firstTile = try readFirstTile(database, path)
        let format = try rasterFormat(metadata["format"], firstTile: firstTile, path)
        let zooms = try zoomRange(metadata, database, path)
        let center = metadata["center"].flatMap(Self.center)
        let declaredType = metadata["type"]?.lowercased()
        let tag = fileTag(identity)
        let layer = ChartLayer(
            number: number, path: path, name: name(metadata["name"], path: path),
            attribution: AttributionText.plain(metadata["attribution"] ?? ""), format: format,
            minZoom: zooms.lowerBound, maxZoom: zooms.upperBound,
            bounds: metadata["bounds"].flatMap(ChartBounds.init(metadata:)) ?? .world, center: center,
            isOverlay: isOverlay(declaredType), fileTag: tag)
        return (layer, walWarning(path))
    }

    /// The file is there, readable and regular; its identity for the ETags.
    private static func checkFile(_ path: String) throws(ChartFileError) -> (device: UInt64, inode: UInt64, size: Int64, modified: Int64) {
        guard !path.isEmpty else { throw .noInput(path, "no file named") }
        let status: DescriptorStatus
        do {
            // Non-blocking: a FIFO given by mistake is refused below instead of waited on.
            let file = try openFile(path, [.readOnly, .nonBlocking])
            status = try descriptorStatus(file.rawValue)
        } catch {
            throw .noInput(path, "cannot be read: \(error)")
        }
        guard status.isRegularFile else {
            throw .noInput(path, isDirectory(path) ? "is a folder, not an MBTiles file" : "is not a regular file")
        }
        do {
            return try fileIdentity(path)
        } catch {
            throw .noInput(path, "cannot be read: \(error)")
        }
    }

    /// The `metadata` table's names and values (names lowercased); empty without the table,
    /// which MBTiles requires but some tools leave out.
    private static func readMetadata(_ database: ReadOnlyDatabase, _ path: String) throws(ChartFileError) -> [String: String] {
        var metadata: [String: String] = [:]
        do {
            let statement = try database.prepare("SELECT name, value FROM metadata")
            while try statement.step() {
                if let name = statement.text(0), let value = statement.text(1) { metadata[name.lowercased()] = value }
            }
        } catch where error.isNotADatabase {
            throw .data(path, "is not an SQLite database (an MBTiles file is one)")
        } catch where error.message.hasPrefix("no such table") {
            return [:]
        } catch {
            throw .data(path, "its metadata cannot be read: \(error)")
        }
        return metadata
    }

    private static func readFirstTile(_ database: ReadOnlyDatabase, _ path: String) throws(ChartFileError) -> [UInt8] {
        do {
            // Also proves the tile query itself, the one every request runs.
            _ = try database.prepare(tileQuery)
            let statement = try database.prepare("SELECT tile_data FROM tiles LIMIT 1")
            guard try statement.step() else { throw ChartFileError.data(path, "holds no tiles") }
            return statement.bytes(0) ?? []
        } catch let error as ChartFileError {
            throw error
        } catch let error as SQLiteError where error.isNotADatabase {
            throw .data(path, "is not an SQLite database (an MBTiles file is one)")
        } catch let error as SQLiteError where error.message.hasPrefix("no such") {
            throw .data(path, "has no tiles table (zoom_level, tile_column, tile_row, tile_data): not an MBTiles file")
        } catch {
            throw .data(path, "its tiles cannot be read: \(error)")
        }
    }

    /// `png`, `jpg` or `webp`: the metadata's `format`, else what the first tile is.
    private static func rasterFormat(_ declared: String?, firstTile: [UInt8], _ path: String) throws(ChartFileError) -> String {
        let sniffed = TileImageType(sniffing: firstTile)
        let vector = ChartFileError.data(
            path, "holds vector tiles (pbf); loctrack serve draws raster tiles: PNG, JPEG or WebP")
        switch declared?.lowercased() {
        case "png": return "png"
        case "jpg", "jpeg": return "jpg"
        case "webp": return "webp"
        case "pbf", "mvt": throw vector
        case nil, "":
            switch sniffed {
            case .png: return "png"
            case .jpeg: return "jpg"
            case .webp: return "webp"
            case .gzip: throw vector
            case .unknown: throw .data(path, "its tiles are not PNG, JPEG or WebP images, and its metadata names no format")
            }
        case let other?:
            throw .data(path, "its format is \(other); loctrack serve draws raster tiles: PNG, JPEG or WebP")
        }
    }

    /// `minzoom`…`maxzoom` from the metadata, else from the tiles themselves.
    private static func zoomRange(_ metadata: [String: String], _ database: ReadOnlyDatabase, _ path: String) throws(ChartFileError) -> ClosedRange<Int> {
        let zooms = 0...TileAddress.deepestZoom
        if let low = metadata["minzoom"].flatMap({ Int($0) }), let high = metadata["maxzoom"].flatMap({ Int($0) }),
           zooms.contains(low), zooms.contains(high), low <= high {
            return low...high
        }
        do {
            let statement = try database.prepare("SELECT min(zoom_level), max(zoom_level) FROM tiles")
            guard try statement.step(), !statement.isNull(0), !statement.isNull(1) else { throw ChartFileError.data(path, "holds no tiles") }
            let low = Int(statement.integer(0)), high = Int(statement.integer(1))
            guard zooms.contains(low), zooms.contains(high) else {
                throw ChartFileError.data(path, "its zoom levels \(low)…\(high) are not within 0…\(TileAddress.deepestZoom)")
            }
            return low...high
        } catch let error as ChartFileError {
            throw error
        } catch {
            throw .data(path, "its zoom levels cannot be read: \(error)")
        }
    }

    /// `lon,lat,zoom` (the zoom may be left out: 0).
    static func center(_ text: String) -> (longitude: Double, latitude: Double, zoom: Int)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingBlanks }
        guard (2...3).contains(parts.count), let longitude = Double(parts[0]), let latitude = Double(parts[1]),
              (-180...180).contains(longitude), (-90...90).contains(latitude) else { return nil }
        let zoom = parts.count == 3 ? Int(parts[2]) ?? Double(parts[2]).map { Int($0.rounded()) } : 0
        guard let zoom, (0...TileAddress.deepestZoom).contains(zoom) else { return nil }
        return (longitude, latitude, zoom)
    }

    private static func name(_ given: String?, path: String) -> String {
        let plain = AttributionText.plain(given ?? "")
        if !plain.isEmpty { return plain }
        var file = path.split(separator: "/").last.map(String.init) ?? path
        if file.hasSuffix(".mbtiles") { file.removeLast(".mbtiles".count) }
        return AttributionText.plain(file)
    }

    /// 16 hexadecimal digits of FNV-1a over the file's device, inode, size and time.
    private static func fileTag(_ identity: (device: UInt64, inode: UInt64, size: Int64, modified: Int64)) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for value in [identity.device, identity.inode, UInt64(bitPattern: identity.size), UInt64(bitPattern: identity.modified)] {
            for shift in stride(from: 0, to: 64, by: 8) {
                hash = (hash ^ (value >> UInt64(shift) & 0xFF)) &* 0x100_0000_01b3
            }
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func walWarning(_ path: String) -> String? {
        guard let identity = try? fileIdentity(path + "-wal"), identity.size > 0 else { return nil }
        return "--tiles-file \(path): \(path)-wal holds changes that are not served (the chart is read as it is in the file; "
            + "sqlite3 \(path) 'PRAGMA wal_checkpoint(TRUNCATE)' moves them into it)"
    }
}
