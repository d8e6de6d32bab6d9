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
    public let time: Timestamp
    /// 2D (no usable altitude) or 3D.
    public let mode: Mode
    /// How the fix was made. Plain GPS unless gpsd reported DGPS, RTK, ….
    public let status: Status
    /// The device path gpsd read the fix from, e.g. `/dev/ttyACM0`.
    public let device: String?

    /// Latitude in degrees, WGS 84, positive north.
    public let latitude: Double
    /// Longitude in degrees, WGS 84, positive east.
    public let longitude: Double
    /// Height above the WGS 84 ellipsoid, metres (gpsd's `altHAE`).
    public let altitudeHAE: Double?
    /// Height above mean sea level, metres (gpsd's `altMSL`).
    public let altitudeMSL: Double?

    /// Estimated horizontal position error, metres (gpsd's `eph`).
    public let horizontalError: Double?
    /// Estimated longitude error, metres (gpsd's `epx`).
    public let longitudeError: Double?
    /// Estimated latitude error, metres (gpsd's `epy`).
    public let latitudeError: Double?
    /// Estimated vertical error, metres (gpsd's `epv`).
    public let verticalError: Double?
    /// Estimated time error, seconds (gpsd's `ept`).
    public let timeError: Double?
    /// Spherical (3D) position error, metres (gpsd's `sep`).
    public let sphericalError: Double?

    /// Speed over ground, metres per second.
    public let speed: Double?
    /// Course over ground, degrees from true north.
    public let track: Double?
    /// Course over ground, degrees from magnetic north (gpsd's `magtrack`).
    public let magneticTrack: Double?
    /// Magnetic variation, degrees (gpsd's `magvar`).
    public let magneticVariation: Double?
    /// Climb (positive) or sink rate, metres per second.
    public let climb: Double?
    /// Estimated speed error, metres per second (gpsd's `eps`).
    public let speedError: Double?
    /// Estimated track error, degrees (gpsd's `epd`).
    public let trackError: Double?
    /// Estimated climb error, metres per second (gpsd's `epc`).
    public let climbError: Double?
    /// Geoid separation: the height of the geoid (MSL) above the ellipsoid, `altHAE − altMSL`, metres (gpsd's `geoidSep`).
    public let geoidSeparation: Double?
    /// GPS − UTC leap seconds, when the receiver reported them.
    public let leapSeconds: Int?
    /// Earth-centred, earth-fixed position and velocity, when the receiver reports them.
    public let ecef: ECEF?
    /// Velocity as north, east and down components, when the receiver reports them.
    public let velocityNED: VelocityNED?
    /// Whether the receiver has stayed within its own error estimate of one place for a
    /// few seconds (loctrack's judgement, not gpsd's; see docs/fixes.md).
    public let isStationary: Bool

    public init(
        time: Timestamp, mode: Mode, status: Status = .gps, device: String? = nil,
        latitude: Double, longitude: Double, altitudeHAE: Double? = nil, altitudeMSL: Double? = nil,
        horizontalError: Double? = nil, longitudeError: Double? = nil, latitudeError: Double? = nil,
        verticalError: Double? = nil, timeError: Double? = nil, sphericalError: Double? = nil,
        speed: Double? = nil, track: Double? = nil, magneticTrack: Double? = nil,
        magneticVariation: Double? = nil, climb: Double? = nil, speedError: Double? = nil,
        trackError: Double? = nil, climbError: Double? = nil, geoidSeparation: Double? = nil,
        leapSeconds: Int? = nil, ecef: ECEF? = nil, velocityNED: VelocityNED? = nil, isStationary: Bool = false
    ) {
        self.time = time
        self.mode = mode
        self.status = status
        self.device = device
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeHAE = altitudeHAE
        self.altitudeMSL = altitudeMSL
        self.horizontalError = horizontalError
        self.longitudeError = longitudeError
        self.latitudeError = latitudeError
        self.verticalError = verticalError
        self.timeError = timeError
        self.sphericalError = sphericalError
        self.speed = speed
        self.track = track
        self.magneticTrack = magneticTrack
        self.magneticVariation = magneticVariation
        self.climb = climb
        self.speedError = speedError
        self.trackError = trackError
        self.climbError = climbError
        self.geoidSeparation = geoidSeparation
        self.leapSeconds = leapSeconds
        self.ecef = ecef
        self.velocityNED = velocityNED
        self.isStationary = isStationary
    }

    /// This fix with ``isStationary`` set to `stationary`.
    public func marked(stationary: Bool) -> Fix {
        Fix(time: time, mode: mode, status: status, device: device, latitude: latitude, longitude: longitude,
            altitudeHAE: altitudeHAE, altitudeMSL: altitudeMSL, horizontalError: horizontalError,
            longitudeError: longitudeError, latitudeError: latitudeError, verticalError: verticalError,
            timeError: timeError, sphericalError: sphericalError, speed: speed, track: track,
            magneticTrack: magneticTrack, magneticVariation: magneticVariation, climb: climb,
            speedError: speedError, trackError: trackError, climbError: climbError,
            geoidSeparation: geoidSeparation, leapSeconds: leapSeconds, ecef: ecef, velocityNED: velocityNED,
            isStationary: stationary)
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
