import LocTrackSystem

/// An area in WGS 84 degrees, as MBTiles' `bounds` gives it: west, south, east, north.
public struct ChartBounds: Equatable, Sendable {
    public let west: Double
    public let south: Double
    public let east: Double
    public let north: Double

    /// How far north and south Web Mercator tiles reach: atan(sinh(π)) in degrees.
    public static let mercatorLimit = 85.051129
    /// The whole Web Mercator world: what a file without `bounds` covers.
    public static let world = ChartBounds(west: -180, south: -mercatorLimit, east: 180, north: mercatorLimit)

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// `bounds` metadata (`west,south,east,north`), nil unless four finite numbers with
    /// longitudes within ±180, latitudes within ±90 and south below north. West may be
    /// east of east: an area across the antimeridian. Latitudes are clamped to Web
    /// Mercator's reach.
    public init?(metadata text: String) {
        let numbers = text.split(separator: ",").compactMap { Double($0.trimmingBlanks) }
        guard numbers.count == 4, text.split(separator: ",").count == 4, numbers.allSatisfy(\.isFinite) else { return nil }
        let (west, south, east, north) = (numbers[0], numbers[1], numbers[2], numbers[3])
        guard (-180...180).contains(west), (-180...180).contains(east), (-90...90).contains(south),
              (-90...90).contains(north), south < north else { return nil }
        self.init(west: west, south: max(south, -Self.mercatorLimit), east: east, north: min(north, Self.mercatorLimit))
    }

    /// Whether the tile at `zoom`, `column`, `row` (XYZ) shares any point with this area.
    /// Generous by a hair (1e-9°), so that a tile a tool counted in, touching the edge,
    /// is never refused for a rounding.
    public func touches(zoom: Int, column: Int, row: Int) -> Bool {
        let tiles = Double(1 << zoom)
        let slack = 1e-9
        let tileWest = Double(column) / tiles * 360 - 180
        let tileEast = Double(column + 1) / tiles * 360 - 180
        let tileNorth = Self.latitude(ofRow: Double(row), tiles: tiles)
        let tileSouth = Self.latitude(ofRow: Double(row + 1), tiles: tiles)
        guard tileSouth <= north + slack, tileNorth >= south - slack else { return false }
        if west <= east {
            return tileWest <= east + slack && tileEast >= west - slack
        }
        // Across the antimeridian: west…180 and −180…east.
        return tileEast >= west - slack || tileWest <= east + slack
    }

    /// The latitude of a row's northern edge in Web Mercator.
    static func latitude(ofRow row: Double, tiles: Double) -> Double {
        let y = Double.pi * (1 - 2 * row / tiles)
        return atan(sinh(y)) * 180 / .pi
    }
}

extension Substring {
    var trimmingBlanks: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
