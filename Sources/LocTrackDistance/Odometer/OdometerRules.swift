/// The odometer's constants, with the reason for each (docs/distance.md has the whole story).
enum OdometerRules {
    /// A speed at or above this (m/s) is motion; below it, standing. The same threshold as
    /// loctrack's stationary flag (`StationaryDetector.movingSpeed`): a parked receiver's
    /// Doppler speed stays below it almost always (the shared recordings peak at 0.59 m/s,
    /// and never for long), a walker is three times above it.
    static let movingSpeed = 0.5
    /// The error circle of a position without an `eph` (gpsd's 95 % horizontal error), as
    /// the stationary flag assumes: a consumer receiver's typical figure.
    static let defaultError = 10.0
    /// No error circle is smaller than this: receivers that report `eph` near 1 m (u-blox
    /// with SBAS) still wander a few metres.
    static let minimumRadius = 5.0
    /// Motion is confirmed once this many positions in a row are fast and outside the
    /// error circle around where the receiver stood ...
    static let confirmPositions = 3
    /// ... for at least this long (so that 5 Hz receivers hold as long as 1 Hz ones).
    static let confirmSeconds = 2.0
    /// ... and once it got at least 1 / this of its path's length away from where it stood:
    /// a departure leads away, a multipath burst goes out and comes back.
    static let departureStraightness = 5.0
    /// A stop is confirmed once this many positions in a row are slow ...
    static let stopPositions = 3
    /// ... for at least this long.
    static let stopSeconds = 2.0
    /// A step longer than this (seconds) is a gap: the receiver's speed at either end says
    /// little about what happened in between, the chord says more.
    static let gapSeconds = 5.0
    /// Faster than this (m/s, 360 km/h) a step is a jump, not travel: nothing is added for
    /// it. Above any road vehicle, below what a bad fix or a clock error implies.
    static let maximumPlausibleSpeed = 100.0
    /// A step whose chord exceeds the receiver's speed times its duration by this factor,
    /// plus the error circle, is a jump (multipath moves the position, not the Doppler
    /// speed): it cannot start motion.
    static let jumpFactor = 1.5
    /// A step at least this long (seconds) whose ends are within ``pauseRadius`` is a stop:
    /// a logger that pauses while the rider stands (a bike computer's auto-pause), or a
    /// receiver that lost its fix in a garage. Traccar's minimal trip duration.
    static let pauseSeconds = 180.0
    /// See ``pauseSeconds``: Traccar's minimal trip distance.
    static let pauseRadius = 200.0
    /// The receiver's speeds are checked against the positions over windows of about this
    /// many metres of displacement (``SpeedCheck``): a few error circles' worth, so that the
    /// positions' noise is small beside it, and short enough to decide within a street.
    static let speedWindowMetres = 100.0
    /// Speeds agree with the positions when their integral over a window is within these
    /// factors of the window's displacement (``speedWindowMetres``, ± ``speedCheckSlack``). A unit
    /// error is a sustained factor outside them: knots read as m/s 1.94, mph 2.24, km/h
    /// 3.6, cm/s 100, m/s read as km/h 0.28.
    static let speedAgreement = 0.75...1.4
    /// ... and no more than this factor of the window's chords: a trip is never longer than
    /// 1.1 × the chords between its fixes.
    static let chordCeiling = 1.1
    /// Metres of slack in the speed check of a window closed short (a stop, the end): its
    /// last stretch is shorter than two error circles, and as noisy.
    static let speedCheckSlack = 20.0
    /// A single fix's speed above this factor of its neighbourhood's (the previous fix's
    /// speed, the step's chord speed), plus ``glitchMargin``, is a glitch: it stands for one
    /// fix only, replaced by the previous fix's speed.
    static let glitchFactor = 3.0
    static let glitchMargin = 3.0

    /// What a vehicle can do to its speed (m/s²), to judge a gap against the speeds at its
    /// ends: a hard car acceleration; a cyclist or a walker does less.
    static let maximumAcceleration = 4.0

    /// Points without a speed (GPX from other programs) are judged by their displacement
    /// over about this many seconds: a single step of noise says nothing.
    static let chordSpeedWindow = 10.0

    /// The error circle of a position: its `eph`, or ``defaultError``, at least ``minimumRadius``.
    static func radius(_ horizontalError: Double?) -> Double {
        guard let horizontalError, horizontalError.isFinite, horizontalError > 0 else { return defaultError }
        return max(horizontalError, minimumRadius)
    }
}
