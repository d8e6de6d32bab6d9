/// One tile as the page asks for it: `/tiles/N/Z/X/Y.EXT`, rows counted from the north
/// (XYZ, Leaflet's order). MBTiles counts them from the south (TMS): ``storedRow``.
public struct TileAddress: Hashable, Sendable {
    /// The layer: the `--tiles-file` it came from, from 1.
    public let layer: Int
    public let zoom: Int
    public let column: Int
    /// From the north (XYZ).
    public let row: Int
    /// The extension asked for, `jpeg` read as `jpg`.
    public let fileExtension: String

    /// The prefix of every tile path.
    public static let pathPrefix = "/tiles/"
    /// The deepest zoom a path may name (2^30 tiles a side: finer than a centimetre).
    public static let deepestZoom = 30

    public init(layer: Int, zoom: Int, column: Int, row: Int, fileExtension: String) {
        self.layer = layer
        self.zoom = zoom
        self.column = column
        self.row = row
        self.fileExtension = fileExtension
    }

    /// The row as MBTiles stores it: `2^zoom − 1 − row` (TMS counts from the south).
    public var storedRow: Int { (1 << zoom) - 1 - row }

    /// Whether column and row exist at this zoom (each below 2^zoom). A path may name one
    /// that does not: it is well-formed, and there is no tile (404, not 400).
    public var isOnTheGrid: Bool { column < (1 << zoom) && row < (1 << zoom) }

    /// What a path under ``pathPrefix`` is.
    public enum Parsed: Equatable, Sendable {
        case tile(TileAddress)
        /// Not `/tiles/N/Z/X/Y.EXT` with plain decimal numbers in range (400).
        case malformed
    }

    /// Parses the path as sent (still percent-encoded: an encoded byte is malformed here,
    /// as no tile path has one). N: 1 to 3 digits; Z: 1 or 2 digits, at most 30; X and Y:
    /// 1 to 10 digits; no leading zeros but for 0 itself; EXT `png`, `jpg`, `jpeg` or `webp`.
    public static func parse(_ path: String) -> Parsed {
        guard path.hasPrefix(pathPrefix) else { return .malformed }
        let parts = path.utf8.dropFirst(pathPrefix.utf8.count).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 4, let dot = parts[3].firstIndex(of: UInt8(ascii: ".")) else { return .malformed }
        let lastNumber = parts[3][..<dot]
        let ext = String(decoding: parts[3][parts[3].index(after: dot)...], as: UTF8.self)
        guard let layer = number(parts[0], digits: 3), layer >= 1,
              let zoom = number(parts[1], digits: 2), zoom <= deepestZoom,
              let column = number(parts[2], digits: 10),
              let row = number(lastNumber, digits: 10),
              let fileExtension = ["png": "png", "jpg": "jpg", "jpeg": "jpg", "webp": "webp"][ext]
        else { return .malformed }
        return .tile(TileAddress(layer: layer, zoom: zoom, column: column, row: row, fileExtension: fileExtension))
    }

    /// A decimal number of 1 to `digits` digits without a leading zero (0 itself allowed).
    private static func number(_ text: Substring.UTF8View.SubSequence, digits: Int) -> Int? {
        guard (1...digits).contains(text.count),
              text.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              text.count == 1 || text.first != UInt8(ascii: "0") else { return nil }
        return text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
