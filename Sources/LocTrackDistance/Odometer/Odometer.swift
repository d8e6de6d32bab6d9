import LocTrack

/// Metres travelled, from positions and their receiver times: a pure, deterministic state
/// machine (a replay of the same positions gives the same metres to the bit), so that a
/// parked receiver adds nothing where the naive sum of distances gains kilometres an hour.
///
/// Distance counts only in the confirmed moving state:
/// - **Departing.** A stationary receiver starts to move when its speed reaches
///   ``OdometerRules/movingSpeed`` and its position is beyond reach of where it stood (the
///   mean of its recent positions there, ``StandingPlace``): further than that place's
///   error circle and its own added (`eph`, 10 m without one, at least 5 m each), both held
///   for ``OdometerRules/confirmPositions`` positions and ``OdometerRules/confirmSeconds``
///   in a row: the loctrack stationary flag's reasoning, turned around. The distance
///   covered while that was being confirmed is added once it is. A step that the
///   receiver's speed cannot explain (multipath moves the position, not the Doppler
///   speed) is a jump: the receiver stands where it jumped to until it departs from there.
/// - **Moving.** Each step adds the receiver's speed integrated over it (the trapezoid of
///   the speeds at its ends); a position without a speed adds the chord from the previous
///   one instead, as for GPX from other programs.
/// - **Stopping.** Slow positions held for ``OdometerRules/stopPositions`` and
///   ``OdometerRules/stopSeconds`` end the motion; what they covered is added only if the
///   motion resumes instead.
/// - **Gaps and jumps.** A step longer than ``OdometerRules/gapSeconds`` adds its chord
///   when the implied speed is plausible (at most ``OdometerRules/maximumPlausibleSpeed``)
///   and the chord is longer than the two error circles; a stationary receiver found elsewhere after a
///   gap gets the chord only once it is seen moving. A chord at an implausible speed adds
///   nothing.
/// - **Time.** Positions dated at or before the newest one add nothing (``ReceiverClock``);
///   nor do positions with non-finite or out-of-range coordinates.
///
/// One odometer serves one tracker: positions of several devices interleaved would be
/// measured as one track.
public struct Odometer: Sendable {
    private var metres: Double
    private var phase = Phase.unstarted
    private var previous: OdometerSample?
    private var departure: TripEndpoint?
    private var clock = ReceiverClock()
    private var chordSpeed = ChordSpeed()

    /// - Parameter metres: the reading to start from (the persisted one, or the vehicle's own).
    public init(startingAt metres: Double = 0) {
        self.metres = metres.isFinite && metres >= 0 ? metres : 0
    }

    /// What the odometer reads now: the metres, whether it is moving, and where the motion
    /// began. The same as the last ``add(_:)`` returned.
    public var reading: OdometerReading {
        if case .moving = phase {
            OdometerReading(metres: metres, moving: true, departure: departure)
        } else {
            OdometerReading(metres: metres, moving: false)
        }
    }

    /// Takes the next position and says what the odometer reads after it.
    public mutating func add(_ point: TrackPoint) -> OdometerReading {
        guard let sample = OdometerSample(point) else { return reading }
        switch clock.judge(sample.time) {
        case .skip:
            return reading
        case .restart:
            restart(at: sample)
        case .later(let elapsed):
            if let previous {
                let speed = sample.receiverSpeed ?? chordSpeed.speed(at: sample)
                let step = Step(from: previous, to: sample, elapsed: elapsed, speed: speed)
                if elapsed > OdometerRules.gapSeconds {
                    crossGap(step)
                } else {
                    advance(step)
                }
            } else {
                restart(at: sample)
            }
        }
        previous = sample
        return reading
    }

    /// Nothing before `sample` counts: the first position, or a clock that stepped back.
    private mutating func restart(at sample: OdometerSample) {
        phase = .stationary(StandingPlace(sample))
        departure = nil
        chordSpeed.reset(at: sample)
    }

    /// A step within ``OdometerRules/gapSeconds``.
    private mutating func advance(_ step: Step) {
        let fast = step.speed >= OdometerRules.movingSpeed
        switch phase {
        case .unstarted:
            restart(at: step.to)
        case .stationary(var place):
            guard fast, step.isConsistent else {
                // Standing, drifting or jumped: it stands here now.
                place.take(step.to)
                phase = .stationary(place)
                return
            }
            phase = .departing(Departure(from: place, first: step.to, metresBefore: metres, covered: step.distance))
            checkOutside(step.to)
        case .departing(var departing):
            guard fast, step.isConsistent else {
                var place = departing.place
                place.take(step.to)
                phase = .stationary(place)
                return
            }
            departing.covered += step.distance
            phase = .departing(departing)
            checkOutside(step.to)
        case .moving(let stop):
            if fast {
                metres += (stop?.covered ?? 0) + step.distance
                phase = .moving(stop: nil)
                return
            }
            var slowing = stop ?? PossibleStop(since: step.to.time)
            slowing.positions += 1
            slowing.covered += step.distance
            if slowing.positions >= OdometerRules.stopPositions,
               step.to.time.seconds(since: slowing.since) >= OdometerRules.stopSeconds {
                phase = .stationary(StandingPlace(step.to))
                departure = nil
            } else {
                phase = .moving(stop: slowing)
            }
        }
    }

    /// A departing receiver's position `sample`: counts towards confirmation while it is
    /// beyond the error circles of where the receiver stood, and confirms the motion once
    /// that held. A position within them may still refine where it stood.
    private mutating func checkOutside(_ sample: OdometerSample) {
        guard case .departing(var departing) = phase else { return }
        if departing.place.contains(sample) {
            departing.place.refine(with: sample)
            departing.outsideSince = nil
            departing.outsidePositions = 0
        } else {
            departing.outsideSince = departing.outsideSince ?? sample.time
            departing.outsidePositions += 1
        }
        if let since = departing.outsideSince, departing.outsidePositions >= OdometerRules.confirmPositions,
           sample.time.seconds(since: since) >= OdometerRules.confirmSeconds {
            departure = departing.first.endpoint(odometer: departing.metresBefore)
            metres += departing.covered
            phase = .moving(stop: nil)
        } else {
            phase = .departing(departing)
        }
    }

    /// A step longer than ``OdometerRules/gapSeconds``.
    private mutating func crossGap(_ step: Step) {
        let fast = step.speed >= OdometerRules.movingSpeed
        switch phase {
        case .unstarted:
            restart(at: step.to)
        case .moving(let stop):
            if step.isPlausible, step.chord > step.from.separation(from: step.to) {
                metres += (stop?.covered ?? 0) + step.chord
            }
            phase = fast ? .moving(stop: nil) : .moving(stop: PossibleStop(since: step.to.time, positions: 1))
        case .stationary(let place):
            departAfterGap(from: place, to: step.to, fast: fast, continuing: nil)
        case .departing(let departing):
            departAfterGap(from: departing.place, to: step.to, fast: fast, continuing: departing)
        }
    }

    /// A receiver that was not (yet) moving is found at `sample` after a gap: if it moved
    /// away plausibly and is moving now, the chord from where it stood is covered, to be
    /// added once the motion is confirmed; otherwise it stands at `sample`.
    private mutating func departAfterGap(from place: StandingPlace, to sample: OdometerSample, fast: Bool, continuing: Departure?) {
        let chord = place.distance(to: sample)
        let elapsed = sample.time.seconds(since: place.time)
        guard fast, elapsed > 0, chord / elapsed <= OdometerRules.maximumPlausibleSpeed, !place.contains(sample) else {
            var standing = place
            standing.take(sample)
            phase = .stationary(standing)
            return
        }
        let first = continuing?.first ?? sample
        let metresBefore = continuing?.metresBefore ?? metres
        phase = .departing(Departure(from: place, first: first, metresBefore: metresBefore, covered: chord))
        checkOutside(sample)
    }
}

extension Odometer {
    enum Phase: Sendable {
        /// Before the first position.
        case unstarted
        /// Standing at a place.
        case stationary(StandingPlace)
        /// Fast since it stood at the departure's place, not yet confirmed.
        case departing(Departure)
        /// Confirmed moving; `stop` while slow positions may be a stop.
        case moving(stop: PossibleStop?)
    }

    struct Departure: Sendable {
        /// Where the receiver stood before it started to move (positions within reach of
        /// it while departing still refine it).
        var place: StandingPlace
        /// The first position of the motion.
        let first: OdometerSample
        /// The odometer before the motion.
        let metresBefore: Double
        /// Metres covered since it stood, added when the motion is confirmed.
        var covered: Double
        /// The time of the first of the positions in a row beyond reach of `place`.
        var outsideSince: Timestamp?
        var outsidePositions = 0

        init(from place: StandingPlace, first: OdometerSample, metresBefore: Double, covered: Double) {
            self.place = place
            self.first = first
            self.metresBefore = metresBefore
            self.covered = covered
        }
    }

    struct PossibleStop: Sendable {
        /// The time of the first slow position.
        let since: Timestamp
        var positions = 0
        /// Metres covered while slow, added if the motion resumes.
        var covered = 0.0
    }

    /// One step from the previous position to the next.
    struct Step {
        let from: OdometerSample
        let to: OdometerSample
        let elapsed: Double
        /// The speed at `to`: the receiver's, or ``ChordSpeed``'s.
        let speed: Double

        /// The great-circle distance of the step, measured only where a rule needs it: a
        /// moving receiver with a speed needs none, and that is most fixes.
        var chord: Double { from.distance(to: to) }

        var isPlausible: Bool { chord <= OdometerRules.maximumPlausibleSpeed * elapsed }

        /// Whether the speeds explain the step: its chord is no longer than the speeds allow
        /// plus the error circle. Without the receiver's speed, only plausibility is known.
        var isConsistent: Bool {
            guard isPlausible else { return false }
            guard let speed = to.receiverSpeed else { return true }
            let fastest = max(speed, from.receiverSpeed ?? speed)
            return chord <= OdometerRules.jumpFactor * fastest * elapsed + from.largerRadius(to)
        }

        /// Metres travelled in the step: the receiver's speed integrated (the trapezoid of
        /// the speeds at its ends), or the chord when `to` has no speed; nothing for a
        /// chord at an implausible speed.
        var distance: Double {
            if let speed = to.receiverSpeed {
                return (speed + (from.receiverSpeed ?? speed)) / 2 * elapsed
            }
            return isPlausible ? chord : 0
        }
    }
}
