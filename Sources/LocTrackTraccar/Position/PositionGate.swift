public import LocTrack

/// Whether a fix may go to Traccar: what Traccar would store wrong, or drop without a
/// word after its 200, is never sent. Pure: the wall clock is an argument.
///
/// A `Fix` always has a 2D or 3D fix (gpsd's mode 2 or 3: a report without one never
/// becomes a `Fix`), so "no fix" needs no rule here.
public enum PositionGate {
    /// Why a fix is not sent.
    public enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// A latitude or longitude that is NaN or infinite: Traccar's range check lets NaN
        /// through.
        case nonFiniteCoordinates
        /// Outside ±90° / ±180°: Traccar closes the connection without a reply, which
        /// would be retried for ever.
        case outOfRange
        /// Exactly 0,0: what a receiver without a position reports (Traccar would store it).
        case nullIsland
        /// Dated more than a day ahead of this computer's clock: Traccar drops it after
        /// its 200 (`filter.future`). An old receiver's GPS week rollover dates fixes
        /// years ahead.
        case datedAhead(Timestamp)
        /// Dated before 2000: a receiver whose clock is not set.
        case datedBefore2000(Timestamp)

        /// The same kind of refusal, whatever the fix: what is said once.
        public var kind: Int {
            switch self {
            case .nonFiniteCoordinates: 0
            case .outOfRange: 1
            case .nullIsland: 2
            case .datedAhead: 3
            case .datedBefore2000: 4
            }
        }

        public var description: String {
            switch self {
            case .nonFiniteCoordinates:
                "not sending fixes without finite coordinates to Traccar"
            case .outOfRange:
                "not sending fixes with coordinates outside ±90°/±180° to Traccar"
            case .nullIsland:
                "not sending fixes at exactly 0,0 to Traccar (a receiver without a position reports those)"
            case .datedAhead(let time):
                "holding back fixes dated more than a day ahead of this computer's clock (\(time.iso8601)): "
                    + "Traccar would drop them; is the receiver's date wrong (a GPS week rollover) or this computer's clock?"
            case .datedBefore2000(let time):
                "not sending fixes dated before 2000 (\(time.iso8601)) to Traccar: the receiver's clock is not set"
            }
        }
    }

    /// 2000-01-01T00:00:00Z.
    public static let earliest = Timestamp(seconds: 946_684_800)
    /// How far ahead of the wall clock Traccar still takes a position (its `filter.future`
    /// default, 86,400 s).
    public static let futureLimitSeconds: Int64 = 86_400

    /// Why `fix` must not be sent, or nil when it may.
    /// - Parameter wallClockSeconds: this computer's clock, seconds since 1970.
    public static func refusal(for fix: Fix, wallClockSeconds: Int64) -> Refusal? {
        guard fix.latitude.isFinite, fix.longitude.isFinite else { return .nonFiniteCoordinates }
        guard abs(fix.latitude) <= 90, abs(fix.longitude) <= 180 else { return .outOfRange }
        if fix.latitude == 0, fix.longitude == 0 { return .nullIsland }
        if fix.time < earliest { return .datedBefore2000(fix.time) }
        if fix.time.seconds > wallClockSeconds + futureLimitSeconds { return .datedAhead(fix.time) }
        return nil
    }
}
