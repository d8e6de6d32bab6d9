import LocTrackSystem

/// The clocks the live side reads, injectable so that tests set the time instead of
/// waiting for it (no timed unit tests).
package struct LiveClock: Sendable {
    /// Monotonic milliseconds: the age of the latest fix, `since=SECONDS`, keep-alives.
    package var monotonicMilliseconds: @Sendable () -> Int64
    /// Seconds since 1970 on the wall clock: the UTC day whose recorded track is loaded,
    /// and `since=SECONDS` before the first live fix.
    package var wallClockSeconds: @Sendable () -> Int64

    package init(monotonicMilliseconds: @escaping @Sendable () -> Int64, wallClockSeconds: @escaping @Sendable () -> Int64) {
        self.monotonicMilliseconds = monotonicMilliseconds
        self.wallClockSeconds = wallClockSeconds
    }

    package static let system = LiveClock(
        monotonicMilliseconds: { Monotonic.milliseconds }, wallClockSeconds: { LocTrackSystem.wallClockSeconds() })
}
