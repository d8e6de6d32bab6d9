import LocTrackCharts

/// `GET /tiles/N/Z/X/Y.EXT`: a `--tiles-file` chart's tile (docs/http.md, "Tiles").
///
/// A tile found: its bytes as stored, its own `Content-Type`, a strong `ETag` and a
/// `Cache-Control` that lets a phone keep it a day (`private`: behind the token, no shared
/// cache may). A well-formed path without a tile: 404 with no body, cached as long (the
/// file does not change while served). A tag the client has: 304, the file not read.
struct ChartTiles: Sendable {
    let charts: ChartLibrary?

    init(_ charts: ChartLibrary?) {
        self.charts = charts
    }

    static let cacheControl = "private, max-age=86400"

    static let malformed = WebResponse.text(
        400, "malformed tile path: expected /tiles/N/Z/X/Y.png (or .jpg, .webp) with plain decimal numbers, Z at most 30")

    static let absent = WebResponse(status: 404, headers: [("Cache-Control", cacheControl)])

    /// Calls `deliver` with the answer: at once when nothing must be read, else from the
    /// chart reader thread that read the tile.
    func response(for address: TileAddress, ifNoneMatch: String?, deliver: @escaping @Sendable (WebResponse) -> Void) {
        guard let charts, let layer = charts.layer(address.layer), layer.mayHold(address) else { return deliver(Self.absent) }
        let tag = layer.entityTag(address)
        let validators: [(name: String, value: String)] = [("ETag", tag), ("Cache-Control", Self.cacheControl)]
        if let ifNoneMatch, WebService.matches(ifNoneMatch, tag) {
            return deliver(WebResponse(status: 304, headers: validators))
        }
        charts.tile(at: address) { lookup in
            switch lookup {
            case .found(let tile):
                deliver(WebResponse(status: 200, headers: [("Content-Type", tile.contentType)] + validators, body: .bytes(tile.bytes)))
            case .absent:
                deliver(Self.absent)
            case .busy:
                deliver(.text(503, "too many tiles asked for at once: try again", headers: [("Retry-After", "1")]))
            case .unreadable(let reason):
                deliver(.text(500, "the chart could not be read: \(reason)"))
            }
        }
    }
}
