/// Traccar's trip rules (its `report.trip.newLogic`, the default since v6.12), so that a
/// loctrack trip is the trip a Traccar user sees.
enum TripRules {
    /// A trip starts once a position is this far (metres) from the last stop's position.
    static let tripDistance = 200.0
    /// A trip ends when no position in this many seconds is ``tripDistance`` from the
    /// current one. Also: a motion that paused this long no longer starts a trip.
    static let stopSeconds = 180.0
    /// A gap in the data longer than this (seconds) ends a trip.
    static let gapSeconds = 3600.0
    /// A gap of this many seconds or more whose ends are within ``tripDistance`` is a stop
    /// (``OdometerRules/pauseSeconds``): a logger's auto-pause ends the trip.
    static let pauseSeconds = OdometerRules.pauseSeconds
    /// A position's speed counts for a trip's maximum when it is no more than this factor of
    /// its neighbours' speeds, plus ``neighbourSpeedMargin`` (m/s): a vehicle does not
    /// triple its speed for one fix.
    static let neighbourSpeedFactor = 1.5
    static let neighbourSpeedMargin = 1.0
    /// The window of recent positions keeps one position per this many seconds (the first;
    /// the others only add their speed), so that a 10 Hz receiver does not need ten times
    /// the memory.
    static let windowSpacing = 0.25
    /// The window never holds more positions than this (180 s at 4 a second, with room).
    static let windowCapacity = 1024
}
