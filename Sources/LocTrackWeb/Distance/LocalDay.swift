import LocTrack

/// One calendar day of the local time zone, as an interval of UTC seconds: what `serve`
/// counts today's distance over (from local midnight to the next).
package struct LocalDay: Sendable, Equatable {
    /// Local midnight, in seconds since 1970 (UTC).
    package let start: Int64
    /// The next local midnight: 86,400 s later, or 23 or 25 hours on a day the clocks change.
    package let end: Int64
    /// `YYYY-MM-DD`, the local date.
    package let date: String

    /// The local day that holds `seconds` (since 1970, UTC).
    /// - Parameter utcOffset: the zone's offset from UTC at a moment, east positive
    ///   (``LiveClock/utcOffsetSeconds``).
    package init(containing seconds: Int64, utcOffset: (Int64) -> Int64) {
        let localDays = (seconds + utcOffset(seconds)).floorDivided(by: 86_400)
        start = Self.midnight(localDays: localDays, near: seconds, utcOffset: utcOffset)
        end = Self.midnight(localDays: localDays + 1, near: seconds + 86_400, utcOffset: utcOffset)
        date = String(Timestamp(seconds: localDays * 86_400).iso8601.prefix(10))
    }

    package func contains(_ seconds: Int64) -> Bool {
        start <= seconds && seconds < end
    }

    /// The UTC instant of 00:00 local time on the day `localDays` after 1970-01-01: the
    /// offset looked up near the day, then again at the midnight found, so that a change
    /// of the clocks during the day does not move it.
    private static func midnight(localDays: Int64, near seconds: Int64, utcOffset: (Int64) -> Int64) -> Int64 {
        let local = localDays * 86_400
        let guess = local - utcOffset(seconds)
        return local - utcOffset(guess)
    }
}

extension Int64 {
    /// Division rounded towards minus infinity (days before 1970 included).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
