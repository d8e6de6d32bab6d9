public import LocTrack

/// `/api/track`'s query (docs/http.md): since when, how many points, which format.
public struct TrackRequest: Sendable, Equatable {
    public enum Since: Sendable, Equatable {
        /// Everything the track keeps.
        case start
        /// Fixes at or after this time (receiver's clock).
        case time(Timestamp)
        /// Fixes of the last this many seconds before the request (loctrack's clock).
        case secondsAgo(Double)
    }

    public enum Format: String, Sendable, Equatable {
        /// `{"lastEventId":…,"total":…,"points":[[ms,lat,lon,eph],…]}`, thinned to `maximumPoints`.
        case points
        /// Every fix, as a GeoJSON FeatureCollection with one LineString (a download).
        case geojson
        /// Every fix, as a GPX document (a download).
        case gpx
    }

    public static let defaultMaximumPoints = 5_000
    public static let largestMaximumPoints = 20_000

    public var since: Since
    public var maximumPoints: Int
    public var format: Format

    public init(since: Since = .start, maximumPoints: Int = TrackRequest.defaultMaximumPoints, format: Format = .points) {
        self.since = since
        self.maximumPoints = maximumPoints
        self.format = format
    }
}

/// A track as the response body: its media type and bytes.
public struct TrackDocument: Sendable, Equatable {
    public var contentType: String
    /// Set for downloads (`attachment; filename="track.gpx"`).
    public var contentDisposition: String?
    public var body: [UInt8]

    public init(contentType: String, contentDisposition: String? = nil, body: [UInt8]) {
        self.contentType = contentType
        self.contentDisposition = contentDisposition
        self.body = body
    }
}
