/// What one gpsd SKY report said: the satellites a receiver sees, which of them it
/// uses, and the dilutions of precision of its solution.
///
/// A session delivers these only when asked (``GPSDSession/init(source:reconnectPolicy:reportsSatellites:)``
/// with `reportsSatellites: true`), as ``GPSDEvent/sky(_:)``: a SKY report is large and
/// most consumers need none of it, so a plain stream skips it unread. A SKY report is
/// not tied to a fix's epoch; some receivers send one only every few epochs.
public struct SkyView: Sendable, Hashable, Codable {
    /// The device path gpsd tagged the report with.
    public let device: String?
    /// The time gpsd gave the report, when it gave one.
    public let time: Timestamp?
    /// Satellites seen (gpsd's `nSat`, else the satellites listed).
    public let seen: Int
    /// Satellites used in the solution (gpsd's `uSat`, else those listed as used).
    public let used: Int
    public let dilution: DilutionOfPrecision
    /// The satellites, in gpsd's order; empty when the report listed none.
    public let satellites: [Satellite]

    public init(
        device: String? = nil, time: Timestamp? = nil, seen: Int, used: Int,
        dilution: DilutionOfPrecision = DilutionOfPrecision(), satellites: [Satellite] = []
    ) {
        self.device = device
        self.time = time
        self.seen = seen
        self.used = used
        self.dilution = dilution
        self.satellites = satellites
    }

    /// Dilutions of precision: how the satellites' geometry multiplies the range error.
    /// A value gpsd did not send is nil.
    public struct DilutionOfPrecision: Sendable, Hashable, Codable {
        public var horizontal: Double?
        public var vertical: Double?
        public var position: Double?
        public var time: Double?
        public var geometric: Double?
        /// Along longitude (`xdop`) and latitude (`ydop`).
        public var longitude: Double?
        public var latitude: Double?

        public init(
            horizontal: Double? = nil, vertical: Double? = nil, position: Double? = nil, time: Double? = nil,
            geometric: Double? = nil, longitude: Double? = nil, latitude: Double? = nil
        ) {
            self.horizontal = horizontal
            self.vertical = vertical
            self.position = position
            self.time = time
            self.geometric = geometric
            self.longitude = longitude
            self.latitude = latitude
        }
    }

    /// One satellite of a SKY report.
    public struct Satellite: Sendable, Hashable, Codable {
        /// gpsd's `PRN` (NMEA numbering; differs between constellations and receivers).
        public let prn: Int
        /// The constellation, when the receiver said (gpsd's `gnssid` with a `svid`).
        public let constellation: Constellation?
        /// The satellite's number within its constellation (gpsd's `svid`).
        public let satelliteID: Int?
        /// Elevation above the horizon, degrees (−90…90).
        public let elevation: Double?
        /// Azimuth, degrees from true north (0…359).
        public let azimuth: Double?
        /// Signal strength, dBHz (gpsd's `ss`).
        public let signalStrength: Double?
        /// Whether the receiver uses it in its solution.
        public let used: Bool
        /// gpsd's `health`: nil unknown, true healthy, false unhealthy.
        public let healthy: Bool?

        public init(
            prn: Int, constellation: Constellation? = nil, satelliteID: Int? = nil, elevation: Double? = nil,
            azimuth: Double? = nil, signalStrength: Double? = nil, used: Bool, healthy: Bool? = nil
        ) {
            self.prn = prn
            self.constellation = constellation
            self.satelliteID = satelliteID
            self.elevation = elevation
            self.azimuth = azimuth
            self.signalStrength = signalStrength
            self.used = used
            self.healthy = healthy
        }
    }

    /// gpsd's `gnssid` (u-blox numbering, as gpsd uses it).
    public enum Constellation: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        case gps = 0, sbas, galileo, beidou, imes, qzss, glonass, navic

        public var description: String {
            switch self {
            case .gps: "GPS"
            case .sbas: "SBAS"
            case .galileo: "Galileo"
            case .beidou: "BeiDou"
            case .imes: "IMES"
            case .qzss: "QZSS"
            case .glonass: "GLONASS"
            case .navic: "NavIC"
            }
        }
    }
}
