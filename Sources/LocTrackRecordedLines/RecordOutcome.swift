package import LocTrack
package import LocTrackDistance

/// What one record of a track file (a line, a row, a track point) comes to.
package enum RecordOutcome: Sendable, Equatable {
    /// A position, checked.
    case point(TrackPoint)
    /// A record that is no position and is not meant to be one: a SKY or TRIP line, a
    /// no-fix TPV, an OwnTracks transition, a GPX point with `<fix>none</fix>`. Skipped quietly.
    case notAPosition
    /// A record that should be a position and cannot be read as one: counted and reported.
    case unreadable(String)
    /// A position without a time (a GPX trkpt without its `<time>`): skipped and counted, and
    /// no damage: the file is as its program wrote it, but a trip needs times.
    case untimed

    /// The point of the values a record gave, after the checks every format shares: a time,
    /// a finite latitude within ±90° and longitude within ±180° (else ``unreadable(_:)``); a
    /// speed or error estimate that is not a finite number of 0 or more counts as unknown,
    /// as does an empty device or an altitude that is not finite. The altitudes and the fix's
    /// kind are what the page's track shows (`serve --track`); the trips do without them.
    package static func checked(
        time: Timestamp, latitude: Double, longitude: Double, speed: Double?, horizontalError: Double?, device: String?,
        altitudeMSL: Double? = nil, altitudeHAE: Double? = nil, isThreeD: Bool = false, isDGPS: Bool = false
    ) -> RecordOutcome {
        guard latitude.isFinite, abs(latitude) <= 90 else { return .unreadable("latitude \(latitude) is not within ±90°") }
        guard longitude.isFinite, abs(longitude) <= 180 else { return .unreadable("longitude \(longitude) is not within ±180°") }
        return .point(TrackPoint(
            time: time, latitude: latitude, longitude: longitude, speed: speed.flatMap(nonNegative),
            horizontalError: horizontalError.flatMap(nonNegative), device: device?.isEmpty == false ? device : nil,
            altitudeMSL: altitudeMSL.flatMap(finite), altitudeHAE: altitudeHAE.flatMap(finite), isThreeD: isThreeD,
            isDGPS: isDGPS))
    }

    private static func finite(_ value: Double) -> Double? {
        value.isFinite ? value : nil
    }

    private static func nonNegative(_ value: Double) -> Double? {
        value.isFinite && value >= 0 ? value : nil
    }
}
