import LocTrackSystem

/// The clocks the live side reads, injectable so that tests set the time instead of
/// waiting for it (no timed unit tests).
package struct LiveClock: Sendable {
    /// Monotonic milliseconds: the age of the latest fix, `since=SECONDS`, keep-alives.
    package var monotonicMilliseconds: @Sendable () -> Int64
    /// Seconds since 1970 on the wall clock: the UTC day whose recorded track is loaded,
    /// and `since=SECONDS` before the first live fix.
    package var wallClockSeconds: @Sendable () -> Int64
    /// The local time zone's offset from UTC at a moment (seconds since 1970), east
    /// positive: where the day of today's distance starts (``LocalDay``).
    package var utcOffsetSeconds: @Sendable (Int64) -> Int64

    /// - Parameter utcOffsetSeconds: by default UTC itself, so that a test's days do not
    ///   depend on the machine's zone.
    package init(
        monotonicMilliseconds: @escaping @Sendable () -> Int64, wallClockSeconds: @escaping @Sendable () -> Int64,
        utcOffsetSeconds: @escaping @Sendable (Int64) -> Int64 = { _ in 0 }
    ) {
        self.monotonicMilliseconds = monotonicMilliseconds
        self.wallClockSeconds = wallClockSeconds
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    package static let system = LiveClock(
        monotonicMilliseconds: { Monotonic.milliseconds }, wallClockSeconds: { LocTrackSystem.wallClockSeconds() },
        utcOffsetSeconds: { localUTCOffset(atSeconds: $0) })
}
