public import LocTrack

/// A position on the WGS 84 ellipsoid, in degrees.
public struct GeoPoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Degrees, positive north, −90…90.
    public let latitude: Double
    /// Degrees, positive east, −180…180.
    public let longitude: Double

    /// A point, checked: a latitude outside ±90 or a longitude outside ±180 throws.
    public init(latitude: Double, longitude: Double) throws(GeofenceError) {
        guard latitude.isFinite, abs(latitude) <= 90 else { throw .invalidLatitude(latitude) }
        guard longitude.isFinite, abs(longitude) <= 180 else { throw .invalidLongitude(longitude) }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values already checked (a fix's position, a stored condition read back).
    package init(unchecked latitude: Double, _ longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public var description: String { "\(latitude),\(longitude)" }
}

extension Fix {
    /// The fix's position.
    public var point: GeoPoint { GeoPoint(unchecked: latitude, longitude) }
}
