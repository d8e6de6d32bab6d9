/// One `--tiles-file`, as the page draws it and the server finds its tiles
/// (docs/http.md, `/api/config`'s `layers`).
public struct ChartLayer: Equatable, Sendable {
    /// From 1, in the order of the `--tiles-file` options: the `N` of its tile paths.
    public let number: Int
    /// The file as given.
    public let path: String
    /// The metadata's `name`, else the file's name without `.mbtiles`.
    public let name: String
    /// The metadata's `attribution` as plain text (``AttributionText``); empty when none.
    public let attribution: String
    /// `png`, `jpg` or `webp`: the tile paths' extension.
    public let format: String
    public let minZoom: Int
    public let maxZoom: Int
    public let bounds: ChartBounds
    /// The metadata's `center`: longitude, latitude and a zoom; nil when it has none.
    public let center: (longitude: Double, latitude: Double, zoom: Int)?
    /// Drawn over the base layer (metadata `type` `overlay`, or not the first file).
    public let isOverlay: Bool
    /// Identifies this version of the file (device, inode, size, modification time):
    /// the first part of every tile's `ETag`.
    public let fileTag: String

    public init(
        number: Int, path: String, name: String, attribution: String, format: String, minZoom: Int, maxZoom: Int,
        bounds: ChartBounds, center: (longitude: Double, latitude: Double, zoom: Int)?, isOverlay: Bool, fileTag: String
    ) {
        self.number = number
        self.path = path
        self.name = name
        self.attribution = attribution
        self.format = format
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.center = center
        self.isOverlay = isOverlay
        self.fileTag = fileTag
    }

    /// The same layer, an overlay or not.
    func drawn(asOverlay isOverlay: Bool) -> ChartLayer {
        ChartLayer(
            number: number, path: path, name: name, attribution: attribution, format: format, minZoom: minZoom,
            maxZoom: maxZoom, bounds: bounds, center: center, isOverlay: isOverlay, fileTag: fileTag)
    }

    /// The page's URL template: same-origin, `/tiles/N/{z}/{x}/{y}.EXT`.
    public var urlTemplate: String { "\(TileAddress.pathPrefix)\(number)/{z}/{x}/{y}.\(format)" }

    /// Whether this layer may hold the tile: its extension, zoom range, the grid and its bounds.
    /// Decided without reading the file.
    public func mayHold(_ address: TileAddress) -> Bool {
        address.fileExtension == format && (minZoom...maxZoom).contains(address.zoom) && address.isOnTheGrid
            && bounds.touches(zoom: address.zoom, column: address.column, row: address.row)
    }

    /// The tile's `ETag`, strong: the file is read immutable, so a tag names its bytes.
    public func entityTag(_ address: TileAddress) -> String {
        "\"\(fileTag)-\(address.zoom)-\(address.column)-\(address.row)\""
    }

    public static func == (a: ChartLayer, b: ChartLayer) -> Bool {
        a.number == b.number && a.path == b.path && a.name == b.name && a.attribution == b.attribution
            && a.format == b.format && a.minZoom == b.minZoom && a.maxZoom == b.maxZoom && a.bounds == b.bounds
            && a.center?.longitude == b.center?.longitude && a.center?.latitude == b.center?.latitude
            && a.center?.zoom == b.center?.zoom && a.isOverlay == b.isOverlay && a.fileTag == b.fileTag
    }
}
