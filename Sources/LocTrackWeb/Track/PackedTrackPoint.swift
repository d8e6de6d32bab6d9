package import LocTrack
package import LocTrackDistance

/// One fix of the track as `serve` keeps it: what points, GeoJSON and GPX need, in 40
/// bytes without references (a `Fix` is a box of ~450 bytes of optionals; LocTrackDistance's
/// ``TrackPoint``, which recorded files are read into, 112 and its device's String). 200,000
/// of them, the most the track keeps, are 8 MB in one allocation.
package struct PackedTrackPoint: Sendable, Equatable {
    /// The receiver's time, milliseconds since 1970 UTC.
    package var time: Int64
    package var latitude: Double
    package var longitude: Double
    // Unknown values are NaN here (an optional Float takes 8 bytes): use the accessors.
    private var horizontalErrorValue: Float
    private var altitudeMSLValue: Float
    private var altitudeHAEValue: Float
    private var flags: UInt8

    private static let threeD: UInt8 = 1
    private static let dgps: UInt8 = 2
    private static let startsSegment: UInt8 = 4

    package init(
        time: Int64, latitude: Double, longitude: Double, horizontalError: Double? = nil, altitudeMSL: Double? = nil,
        altitudeHAE: Double? = nil, isThreeD: Bool = true, isDGPS: Bool = false, startsSegment: Bool = false
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        horizontalErrorValue = Self.stored(horizontalError)
        altitudeMSLValue = Self.stored(altitudeMSL)
        altitudeHAEValue = Self.stored(altitudeHAE)
        flags = (isThreeD ? Self.threeD : 0) | (isDGPS ? Self.dgps : 0) | (startsSegment ? Self.startsSegment : 0)
    }

    /// The point of `fix`; `startsSegment`: the fixes before it are not the same stretch
    /// of track (an outage, a lost fix).
    package init(_ fix: Fix, startsSegment: Bool = false) {
        self.init(
            time: fix.time.seconds * 1000 + Int64(fix.time.nanoseconds / 1_000_000), latitude: fix.latitude,
            longitude: fix.longitude, horizontalError: fix.horizontalError, altitudeMSL: fix.altitudeMSL,
            altitudeHAE: fix.altitudeHAE, isThreeD: fix.mode == .threeD, isDGPS: fix.status == .dgps,
            startsSegment: startsSegment)
    }

    /// The packed copy of a point read from a recorded file: its speed and device are the
    /// odometer's, not the track's (the page's points, GeoJSON and GPX have neither).
    package init(_ point: TrackPoint, startsSegment: Bool = false) {
        self.init(
            time: point.time.seconds * 1000 + Int64(point.time.nanoseconds / 1_000_000), latitude: point.latitude,
            longitude: point.longitude, horizontalError: point.horizontalError, altitudeMSL: point.altitudeMSL,
            altitudeHAE: point.altitudeHAE, isThreeD: point.isThreeD, isDGPS: point.isDGPS, startsSegment: startsSegment)
    }

    /// Equal values; unknown equals unknown (NaN, stored, would not).
    package static func == (lhs: PackedTrackPoint, rhs: PackedTrackPoint) -> Bool {
        lhs.time == rhs.time && lhs.latitude == rhs.latitude && lhs.longitude == rhs.longitude
            && lhs.horizontalError == rhs.horizontalError && lhs.altitudeMSL == rhs.altitudeMSL
            && lhs.altitudeHAE == rhs.altitudeHAE && lhs.flags == rhs.flags
    }

    /// gpsd's `eph`, metres.
    package var horizontalError: Double? { Self.value(horizontalErrorValue) }
    package var altitudeMSL: Double? { Self.value(altitudeMSLValue) }
    package var altitudeHAE: Double? { Self.value(altitudeHAEValue) }
    package var isThreeD: Bool { flags & Self.threeD != 0 }
    package var isDGPS: Bool { flags & Self.dgps != 0 }
    package var startsSegment: Bool { flags & Self.startsSegment != 0 }

    /// The time as a ``Timestamp`` (milliseconds kept).
    package var timestamp: Timestamp {
        let seconds = time >= 0 ? time / 1000 : (time - 999) / 1000
        return Timestamp(seconds: seconds, nanoseconds: Int32(time - seconds * 1000) * 1_000_000)
    }

    package func startingSegment(_ starts: Bool) -> PackedTrackPoint {
        var point = self
        point.flags = starts ? flags | Self.startsSegment : flags & ~Self.startsSegment
        return point
    }

    private static func stored(_ value: Double?) -> Float {
        guard let value, value.isFinite else { return .nan }
        return Float(value)
    }

    private static func value(_ stored: Float) -> Double? {
        stored.isNaN ? nil : Double(stored)
    }
}
