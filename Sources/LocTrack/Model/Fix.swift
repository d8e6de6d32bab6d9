/// One position fix for one GPS epoch, as gpsd reported it.
///
/// A `Fix` is what remains of a gpsd TPV report that has a 2D or 3D fix,
/// a finite latitude and longitude, and a time. Every other field is optional:
/// a value that gpsd did not send, or that libgps marked as NaN, is `nil`.
/// Units and meanings are gpsd's (see `man gpsd_json`): metres, metres per
/// second, degrees from true north, and error estimates that gpsd documents
/// as "guessed to be 95% confidence".
public struct Fix: Sendable, Hashable, Codable {
    /// The receiver's time of the fix (UTC).
    public var time: Timestamp { box.values.time }
    /// 2D (no usable altitude) or 3D.
    public var mode: Mode { box.values.mode }
    /// How the fix was made. Plain GPS unless gpsd reported DGPS, RTK, ….
    public var status: Status { box.values.status }
    /// The device path gpsd read the fix from, e.g. `/dev/ttyACM0`.
    public var device: String? { box.values.device }

    /// Latitude in degrees, WGS 84, positive north.
    public var latitude: Double { box.values.latitude }
    /// Longitude in degrees, WGS 84, positive east.
    public var longitude: Double { box.values.longitude }
    /// Height above the WGS 84 ellipsoid, metres (gpsd's `altHAE`).
    public var altitudeHAE: Double? { box.values.altitudeHAE }
    /// Height above mean sea level, metres (gpsd's `altMSL`).
    public var altitudeMSL: Double? { box.values.altitudeMSL }

    /// Estimated horizontal position error, metres (gpsd's `eph`).
    public var horizontalError: Double? { box.values.horizontalError }
    /// Estimated longitude error, metres (gpsd's `epx`).
    public var longitudeError: Double? { box.values.longitudeError }
    /// Estimated latitude error, metres (gpsd's `epy`).
    public var latitudeError: Double? { box.values.latitudeError }
    /// Estimated vertical error, metres (gpsd's `epv`).
    public var verticalError: Double? { box.values.verticalError }
    /// Estimated time error, seconds (gpsd's `ept`).
    public var timeError: Double? { box.values.timeError }
    /// Spherical (3D) position error, metres (gpsd's `sep`).
    public var sphericalError: Double? { box.values.sphericalError }

    /// Speed over ground, metres per second.
    public var speed: Double? { box.values.speed }
    /// Course over ground, degrees from true north.
    public var track: Double? { box.values.track }
    /// Course over ground, degrees from magnetic north (gpsd's `magtrack`).
    public var magneticTrack: Double? { box.values.magneticTrack }
    /// Magnetic variation, degrees (gpsd's `magvar`).
    public var magneticVariation: Double? { box.values.magneticVariation }
    /// Climb (positive) or sink rate, metres per second.
    public var climb: Double? { box.values.climb }
    /// Estimated speed error, metres per second (gpsd's `eps`).
    public var speedError: Double? { box.values.speedError }
    /// Estimated track error, degrees (gpsd's `epd`).
    public var trackError: Double? { box.values.trackError }
    /// Estimated climb error, metres per second (gpsd's `epc`).
    public var climbError: Double? { box.values.climbError }
    /// Geoid separation: the height of the geoid (MSL) above the ellipsoid, `altHAE − altMSL`, metres (gpsd's `geoidSep`).
    public var geoidSeparation: Double? { box.values.geoidSeparation }
    /// GPS − UTC leap seconds, when the receiver reported them.
    public var leapSeconds: Int? { box.values.leapSeconds }
    /// Earth-centred, earth-fixed position and velocity, when the receiver reports them.
    public var ecef: ECEF? { box.values.ecef }
    /// Velocity as north, east and down components, when the receiver reports them.
    public var velocityNED: VelocityNED? { box.values.velocityNED }
    /// Where the receiver is from its RTK base, when an RTK receiver reports it (gpsd's
    /// `relN`, `relE`, `relD`, `relH`, `relL`). Read from libgps 3.23 on: 3.22's libgps
    /// stores `velN` where `relN` goes, so the two cannot be told apart there.
    public var relativePosition: RelativePosition? { box.values.relativePosition }
    /// Age of the differential corrections, seconds (gpsd's `dgpsAge`).
    public var dgpsAge: Double? { box.values.dgpsAge }
    /// The differential reference station's ID (gpsd's `dgpsSta`).
    public var dgpsStation: Int? { box.values.dgpsStation }
    /// Whether the receiver has stayed within its own error estimate of one place for a
    /// few seconds (loctrack's judgement, not gpsd's; see docs/fixes.md).
    public var isStationary: Bool { box.values.isStationary }

    /// Every value, in one immutable box: a copy of a fix is one retain. A fix is copied
    /// several times on its way from the reader to a consumer (the epoch merger, the
    /// stationary detector and the hand-off each keep one), and a copy of 27 stored
    /// properties, most of them optional, ran its own outlined copy code each time: at
    /// 1 Hz, code that has to come back into the caches for every fix (docs/performance.md).
    private let box: Box

    public init(
        time: Timestamp, mode: Mode, status: Status = .gps, device: String? = nil,
        latitude: Double, longitude: Double, altitudeHAE: Double? = nil, altitudeMSL: Double? = nil,
        horizontalError: Double? = nil, longitudeError: Double? = nil, latitudeError: Double? = nil,
        verticalError: Double? = nil, timeError: Double? = nil, sphericalError: Double? = nil,
        speed: Double? = nil, track: Double? = nil, magneticTrack: Double? = nil,
        magneticVariation: Double? = nil, climb: Double? = nil, speedError: Double? = nil,
        trackError: Double? = nil, climbError: Double? = nil, geoidSeparation: Double? = nil,
        leapSeconds: Int? = nil, ecef: ECEF? = nil, velocityNED: VelocityNED? = nil,
        relativePosition: RelativePosition? = nil, dgpsAge: Double? = nil, dgpsStation: Int? = nil,
        isStationary: Bool = false
    ) {
        box = Box(Values(
            time: time,
            mode: mode,
            status: status,
            device: device,
            latitude: latitude,
            longitude: longitude,
            altitudeHAE: altitudeHAE,
            altitudeMSL: altitudeMSL,
            horizontalError: horizontalError,
            longitudeError: longitudeError,
            latitudeError: latitudeError,
            verticalError: verticalError,
            timeError: timeError,
            sphericalError: sphericalError,
            speed: speed,
            track: track,
            magneticTrack: magneticTrack,
            magneticVariation: magneticVariation,
            climb: climb,
            speedError: speedError,
            trackError: trackError,
            climbError: climbError,
            geoidSeparation: geoidSeparation,
            leapSeconds: leapSeconds,
            ecef: ecef,
            velocityNED: velocityNED,
            relativePosition: relativePosition,
            dgpsAge: dgpsAge,
            dgpsStation: dgpsStation,
            isStationary: isStationary))
    }

    private init(_ values: Values) {
        box = Box(values)
    }

    /// This fix with ``isStationary`` set to `stationary`.
    public func marked(stationary: Bool) -> Fix {
        guard stationary != isStationary else { return self }
        var values = box.values
        values.isStationary = stationary
        return Fix(values)
    }

    // Codable and Hashable are the values': the keys and the JSON are those that Swift
    // synthesized for Fix when it stored them itself.

    public init(from decoder: any Decoder) throws {
        self.init(try Values(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try box.values.encode(to: encoder)
    }

    public static func == (lhs: Fix, rhs: Fix) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    public func hash(into hasher: inout Hasher) {
        box.values.hash(into: &hasher)
    }
}

extension Fix {
    /// Whether the fix has a usable altitude.
    public enum Mode: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        case twoD = 2
        case threeD = 3

        public var description: String { self == .twoD ? "2D" : "3D" }
    }

    /// How gpsd says the fix was made (gpsd's TPV `status`).
    public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A plain GNSS fix. gpsd leaves `status` out of TPV for this one.
        public static let gps = Status(rawValue: 1)
        public static let dgps = Status(rawValue: 2)
        public static let rtkFixed = Status(rawValue: 3)
        public static let rtkFloat = Status(rawValue: 4)
        public static let deadReckoning = Status(rawValue: 5)
        public static let gnssDeadReckoning = Status(rawValue: 6)
        public static let timeOnly = Status(rawValue: 7)
        public static let simulated = Status(rawValue: 8)
        public static let pps = Status(rawValue: 9)

        public var description: String {
            switch rawValue {
            case 1: "GPS"
            case 2: "DGPS"
            case 3: "RTK fixed"
            case 4: "RTK float"
            case 5: "DR"
            case 6: "GNSS+DR"
            case 7: "time only"
            case 8: "simulated"
            case 9: "P(Y)"
            default: "status \(rawValue)"
            }
        }
    }

    /// Velocity in the local north-east-down frame, metres per second (gpsd's `velN`, `velE`, `velD`).
    public struct VelocityNED: Sendable, Hashable, Codable {
        public let north: Double, east: Double, down: Double

        public init(north: Double, east: Double, down: Double) {
            self.north = north
            self.east = east
            self.down = down
        }
    }

    /// A position relative to an RTK base station, metres north, east and down, with the
    /// baseline's heading (degrees) and length (metres) where the receiver gives them.
    public struct RelativePosition: Sendable, Hashable, Codable {
        public let north: Double, east: Double
        public let down: Double?, heading: Double?, length: Double?

        public init(north: Double, east: Double, down: Double? = nil, heading: Double? = nil, length: Double? = nil) {
            self.north = north
            self.east = east
            self.down = down
            self.heading = heading
            self.length = length
        }
    }

    /// Earth-centred, earth-fixed coordinates, metres and metres per second.
    public struct ECEF: Sendable, Hashable, Codable {
        public let x: Double, y: Double, z: Double
        public let vx: Double?, vy: Double?, vz: Double?
        /// Position accuracy estimate, metres (gpsd's `ecefpAcc`).
        public let positionAccuracy: Double?
        /// Velocity accuracy estimate, metres per second (gpsd's `ecefvAcc`).
        public let velocityAccuracy: Double?

        public init(
            x: Double, y: Double, z: Double, vx: Double? = nil, vy: Double? = nil, vz: Double? = nil,
            positionAccuracy: Double? = nil, velocityAccuracy: Double? = nil
        ) {
            self.x = x
            self.y = y
            self.z = z
            self.vx = vx
            self.vy = vy
            self.vz = vz
            self.positionAccuracy = positionAccuracy
            self.velocityAccuracy = velocityAccuracy
        }
    }
}
