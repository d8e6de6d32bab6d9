extension Fix {
    /// A fix's stored values: the fields of ``Fix``, under the same names, so that the
    /// synthesized `Codable` and `Hashable` are the ones `Fix` had before it kept them in
    /// a ``Box``.
    struct Values: Sendable, Hashable, Codable {
        let time: Timestamp
        let mode: Mode
        let status: Status
        let device: String?
        let latitude: Double
        let longitude: Double
        let altitudeHAE: Double?
        let altitudeMSL: Double?
        let horizontalError: Double?
        let longitudeError: Double?
        let latitudeError: Double?
        let verticalError: Double?
        let timeError: Double?
        let sphericalError: Double?
        let speed: Double?
        let track: Double?
        let magneticTrack: Double?
        let magneticVariation: Double?
        let climb: Double?
        let speedError: Double?
        let trackError: Double?
        let climbError: Double?
        let geoidSeparation: Double?
        let leapSeconds: Int?
        let ecef: ECEF?
        let velocityNED: VelocityNED?
        let relativePosition: RelativePosition?
        let dgpsAge: Double?
        let dgpsStation: Int?
        var isStationary: Bool
    }

    /// The one allocation behind a fix; immutable, so a `Fix` is a value all the same.
    final class Box: Sendable {
        let values: Values

        init(_ values: Values) {
            self.values = values
        }
    }
}
