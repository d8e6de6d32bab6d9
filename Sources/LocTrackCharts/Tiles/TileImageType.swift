/// What a tile's bytes are, read from their first bytes (their magic numbers), so that each
/// tile is served with its own `Content-Type` even in a file that mixes PNG and JPEG (Mobile
/// Atlas Creator's can) or whose `format` metadata is missing.
public enum TileImageType: String, Sendable {
    case png, jpeg, webp
    /// gzip: how MBTiles stores vector tiles (Mapbox Vector Tile protobufs, `pbf`).
    case gzip
    case unknown

    public init(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.count == 12, starts(Array("RIFF".utf8)), head[8...].elementsEqual("WEBP".utf8) {
            self = .webp
        } else if starts([0x1F, 0x8B]) {
            self = .gzip
        } else {
            self = .unknown
        }
    }

    /// The `Content-Type` of a raster tile; nil for what is not one.
    public var contentType: String? {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        case .gzip, .unknown: nil
        }
    }
}
