/// A tile's bytes as stored, and the `Content-Type` they are served with.
public struct TileData: Sendable {
    public let bytes: [UInt8]
    public let contentType: String

    public init(bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
    }
}

/// What asking for a tile found.
public enum TileLookup: Sendable {
    case found(TileData)
    /// The layer has no such tile (404).
    case absent
    /// Too many reads are waiting already (503): a client flooding the server with tile
    /// requests is told to come back instead of queueing without end.
    case busy
    /// SQLite could not read it (the file vanished, or is damaged): the reason (500).
    case unreadable(String)
}
