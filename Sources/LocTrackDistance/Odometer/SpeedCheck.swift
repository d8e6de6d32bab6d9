/// Whether the receiver's speeds can be integrated: their integral checked against the
/// positions' displacement over windows of about ``OdometerRules/speedWindowMetres``.
///
/// A logger that writes its speed in another unit (cm/s, km/h, knots where GPX says m/s)
/// is wrong by a factor that holds for the whole file; integrating it turns a 15 km ride
/// into 314 km. The positions cannot be wrong that way: they are noisy by metres, not by a
/// factor. So each window sums the speeds integrated over its steps and the displacement
/// the positions show, the track decimated to points at least two error circles apart
/// (their noise is then small beside each chord); the speeds agree when the two are within
/// ``OdometerRules/speedAgreement`` of each other, and their integral is within
/// ``OdometerRules/chordCeiling`` of the steps' chords. Each window's verdict holds for
/// the steps after it; before the first, the steps wait (``Covered``).
///
/// A single bad speed (one fix's spike) is no unit error: ``filtered(_:after:chord:elapsed:)``
/// replaces it before it is summed.
struct SpeedCheck: Sendable {
    enum Trust: Sendable, Equatable {
        /// No window has been judged: what the steps covered waits.
        case undecided
        case trusted
        /// The positions' chords count instead of the speeds.
        case distrusted
    }

    /// The steps of a motion since the last verdict: what their speeds and their positions
    /// say. A departure keeps its own until the motion is confirmed (a multipath burst that
    /// never became one must not weigh in).
    struct Window: Sendable {
        var speedMetres = 0.0
        var chordMetres = 0.0
        var displacement = 0.0
        /// The last point of the decimated track.
        var anchor: OdometerSample?
        /// The window's last point: a window closed short measures up to it.
        var last: OdometerSample?

        var isEmpty: Bool { speedMetres == 0 && displacement == 0 }

        /// Takes a step of a motion whose end carries a speed (`speedMetres`: the speeds
        /// integrated over it).
        mutating func take(_ step: Odometer.Step, speedMetres stepSpeedMetres: Double) {
            speedMetres += stepSpeedMetres
            if step.isPlausible { chordMetres += step.chord }
            let decimated = anchor ?? step.from
            anchor = decimated
            last = step.to
            let apart = decimated.distance(to: step.to)
            if apart >= decimated.separation(from: step.to) {
                displacement += apart
                anchor = step.to
            }
        }

        /// Adds a later window's steps (a confirmed departure's).
        mutating func append(_ later: Window) {
            speedMetres += later.speedMetres
            chordMetres += later.chordMetres
            displacement += later.displacement
            anchor = later.anchor ?? anchor
            last = later.last ?? last
        }

        /// The displacement with the stretch from the decimated track's last point to the
        /// window's (shorter than two error circles: noisy, for a window closed short).
        var displacementToLast: Double {
            guard let anchor, let last else { return displacement }
            return displacement + anchor.distance(to: last)
        }
    }

    private(set) var trust = Trust.undecided
    /// Windows judged, and those that disagreed with the ratio of their speeds to their
    /// displacement summed: a receiver whose speeds are in another unit disagrees in most.
    private var judged = 0
    private var disagreed = 0
    private var disagreeingRatios = 0.0

    /// When most windows disagreed (at least two): the mean ratio of the speeds' integral to
    /// the displacement in those that did, for the one line that says so; nil otherwise. A
    /// receiver whose speeds are right disagrees in a window now and then (a turn at 1 Hz,
    /// a multipath jump), never in most.
    var disagreement: Double? {
        guard disagreed >= 2, 2 * disagreed >= judged else { return nil }
        return disagreeingRatios / Double(disagreed)
    }
    private var window = Window()
    private var lastVerdict = Trust.undecided

    /// Takes a step of a motion.
    mutating func take(_ step: Odometer.Step, speedMetres: Double) {
        window.take(step, speedMetres: speedMetres)
        judgeIfFull()
    }

    /// Takes a confirmed departure's steps.
    mutating func take(_ departure: Window) {
        window.append(departure)
        judgeIfFull()
    }

    /// A motion stopped, or the input ended: before any verdict, what the window holds is
    /// judged, short as it is (to where it ends, with ``OdometerRules/speedCheckSlack``), so
    /// that what waited counts; after one, a short window says too little to overturn it.
    /// The next window starts afresh.
    mutating func close() {
        if trust == .undecided, !window.isEmpty {
            window.displacement = window.displacementToLast
            judge(slack: OdometerRules.speedCheckSlack)
        }
        window = Window()
    }

    private mutating func judgeIfFull() {
        let metres = OdometerRules.speedWindowMetres
        // A window whose speeds alone run to ten windows is judged at once: a unit error of
        // 100 while the positions hardly move must not wait for them.
        if window.displacement >= metres || window.speedMetres >= 10 * metres {
            judge(slack: 0)
            window = Window(anchor: window.anchor)
        }
    }

    private mutating func judge(slack: Double) {
        let agreement = OdometerRules.speedAgreement
        let agrees = window.speedMetres >= agreement.lowerBound * window.displacement - slack
            && window.speedMetres <= agreement.upperBound * window.displacement + slack
            && window.speedMetres <= OdometerRules.chordCeiling * window.chordMetres + slack
        let verdict = agrees ? Trust.trusted : .distrusted
        judged += 1
        if !agrees {
            disagreed += 1
            let displacement = window.displacementToLast
            disagreeingRatios += displacement > 0 ? min(window.speedMetres / displacement, 1000) : 1000
        }
        // The first verdict decides; after it, trust changes only when two windows in a row
        // say so: a unit error is sustained, a window with a multipath jump in it is not.
        if trust == .undecided || verdict == lastVerdict { trust = verdict }
        lastVerdict = verdict
    }

    /// The speed to take for a fix: its own, unless it is a single glitch (far above the
    /// speed the previous fix reported and the step's chord speed), then the previous fix's.
    static func filtered(_ speed: Double, after previous: Double?, chord: Double, elapsed: Double) -> Double {
        let chordSpeed = elapsed > 0 ? chord / elapsed : 0
        let neighbourhood = max(previous ?? chordSpeed, chordSpeed)
        guard speed > OdometerRules.glitchFactor * neighbourhood + OdometerRules.glitchMargin else { return speed }
        return previous ?? chordSpeed
    }
}

/// What steps covered until the ``SpeedCheck`` says which way counts: by the receiver's
/// speeds and by the chords (``bySpeed``, ``byChord``), or the same either way
/// (``byBoth``: steps without a speed, gaps); and the seconds they took.
struct Covered: Sendable {
    var byBoth = 0.0
    var bySpeed = 0.0
    var byChord = 0.0
    var seconds = 0.0

    mutating func add(_ other: Covered) {
        byBoth += other.byBoth
        bySpeed += other.bySpeed
        byChord += other.byChord
        seconds += other.seconds
    }

    /// The metres of the steps with speeds that count under `trust`; nil while it is
    /// undecided and there are any.
    func metres(_ trust: SpeedCheck.Trust) -> Double? {
        switch trust {
        case .trusted: bySpeed
        case .distrusted: byChord
        case .undecided: bySpeed == 0 && byChord == 0 ? 0 : nil
        }
    }
}
