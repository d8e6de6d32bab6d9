import LocTrackSystem

/// The charts `loctrack serve --tiles-file` serves (docs/serve.md, "Charts"): the layers,
/// checked when opened, and their tiles, read off the event loop (``TileReadPool``) with
/// the hot ones kept in memory (``HotTileCache``). The files are read, never loaded: a
/// chart of several GB costs the server its connections' page caches (1 MiB each), the
/// hot tiles (``cacheBudget``) and what is being read.
public final class ChartLibrary: Sendable {
    public let layers: [ChartLayer]
    /// Lines for stderr about files that are served but not wholly (a `-wal` file's data).
    public let warnings: [String]
    private let pool: TileReadPool
    private let cache: HotTileCache

    /// Hot tiles kept at most, in bytes.
    public static let cacheBudget = 8 << 20
    /// Reader threads: a chart read waits on storage, not on a core, and two keep an SD card
    /// busy without a crowd of threads.
    public static let readerThreads = 2

    /// Opens `paths` in order (layer 1, 2, …): the first a base layer, the others overlays,
    /// unless a file's `type` says otherwise (``LayerRoles``).
    /// - Parameter onlineBase: `--tiles` names an online base map too.
    /// - Throws: the first file that cannot be served, with its line and exit code.
    public init(
        paths: [String], onlineBase: Bool = false, readers: Int = readerThreads, cacheBudget: Int = cacheBudget
    ) throws(ChartFileError) {
        var layers: [ChartLayer] = []
        var warnings: [String] = []
        var declared: [String?] = []
        for (index, path) in paths.enumerated() {
            let (layer, warning) = try ChartFileInspection.inspect(path: path, number: index + 1) { type in
                declared.append(type)
                return false  // decided below, once every file's type is known
            }
            layers.append(layer)
            if let warning { warnings.append(warning) }
        }
        let overlays = LayerRoles.overlays(declared: declared, onlineBase: onlineBase)
        layers = zip(layers, overlays).map { layer, isOverlay in layer.drawn(asOverlay: isOverlay) }
        do {
            pool = try TileReadPool(paths: paths, threads: readers)
        } catch {
            throw ChartFileError(path: paths.first ?? "", reason: "cannot start a reader thread: \(error)", exitCode: 71)
        }
        self.layers = layers
        self.warnings = warnings
        self.cache = HotTileCache(budget: cacheBudget)
    }

    deinit { pool.stop() }

    /// The layer numbered `number` (from 1), if there is one.
    public func layer(_ number: Int) -> ChartLayer? {
        layers.indices.contains(number - 1) ? layers[number - 1] : nil
    }

    /// The tile at `address`: from memory when it was asked for lately, else read from its
    /// file on a reader thread. ``TileLookup/absent`` without a read when the layer cannot
    /// hold it (another extension, outside its zooms, the grid or its bounds).
    public func tile(at address: TileAddress) async -> TileLookup {
        await withCheckedContinuation { continuation in
            tile(at: address) { continuation.resume(returning: $0) }
        }
    }

    /// The same, for a caller that is not a task: `deliver` is called at once, on the calling
    /// thread, when no read is needed (absent, or in memory), else later on a reader thread.
    /// The server's event loop asks this way, so that a tile in memory never leaves it.
    public func tile(at address: TileAddress, deliver: @escaping @Sendable (TileLookup) -> Void) {
        guard let layer = layer(address.layer), layer.mayHold(address) else { return deliver(.absent) }
        if let data = cache.tile(at: address) { return deliver(.found(data)) }
        pool.read(address) { [cache] lookup in
            if case .found(let data) = lookup { cache.keep(data, at: address) }
            deliver(lookup)
        }
    }

    /// Stops the reader threads and joins them (also when the library goes).
    public func close() { pool.stop() }
}
