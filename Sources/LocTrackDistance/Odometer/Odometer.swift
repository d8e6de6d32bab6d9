import LocTrack

/// Metres travelled, from positions and their receiver times: a pure, deterministic state
/// machine (a replay of the same positions gives the same metres to the bit), so that a
/// parked receiver adds nothing where the naive sum of distances gains kilometres an hour,
/// and a logger that writes a fix a minute counts the same journey as one at 1 Hz.
///
/// Distance counts only in the confirmed moving state:
/// - **Fast.** A step is fast when the receiver's speed at its end is at least
///   ``OdometerRules/movingSpeed``; without a speed (or with speeds that disagree with the
///   positions, ``SpeedCheck``), when the displacement over about ten seconds
///   (``ChordSpeed``) is that fast. A step longer than ``OdometerRules/gapSeconds`` is also
///   fast when its chord leaves both error circles at that speed: the speed at its ends says
///   little about what happened in between (a bike at a red light after 500 m).
/// - **Departing.** A stationary receiver starts to move when its steps are fast and its
///   position is beyond reach of where it stood (the mean of its recent positions there,
///   ``StandingPlace``): further than that place's error circle and its own added (`eph`,
///   10 m without one, at least 5 m each), both held for ``OdometerRules/confirmPositions``
///   positions and ``OdometerRules/confirmSeconds`` in a row, at any interval. What the
///   steps covered meanwhile is added once it is confirmed. A short step that the
///   receiver's speed cannot explain (multipath moves the position, not the Doppler speed)
///   is a jump: the receiver stands where it jumped to until it departs from there.
/// - **Moving.** Every fast step counts: the receiver's speed integrated over it (the
///   trapezoid of the speeds at its ends) when the speeds agree with the positions
///   (``SpeedCheck``) and the step is short; its chord otherwise. A chord at an
///   implausible speed (over ``OdometerRules/maximumPlausibleSpeed``) adds nothing.
/// - **Stopping.** Slow steps held for ``OdometerRules/stopPositions`` and
///   ``OdometerRules/stopSeconds`` end the motion; what they covered is added only if the
///   motion resumes instead. A step of ``OdometerRules/pauseSeconds`` or more whose ends
///   are within ``OdometerRules/pauseRadius`` is a stop too (a logger's auto-pause).
/// - **Time.** Positions dated at or before the newest one add nothing (``ReceiverClock``);
///   nor do positions with non-finite or out-of-range coordinates.
///
/// One odometer serves one tracker: positions of several devices interleaved would be
/// measured as one track.
public struct Odometer: Sendable {
    private var metres: Double
    private var movingSeconds = 0.0
    private var phase = Phase.unstarted
    private var previous: OdometerSample?
    private var departure: TripEndpoint?
    private var clock = ReceiverClock()
    private var chordSpeed = ChordSpeed()
    private var speedCheck = SpeedCheck()
    /// What confirmed motion covered by the receiver's speeds and by the chords, while no
    /// window of the ``SpeedCheck`` has said which counts.
    private var pending = Covered()

    /// - Parameter metres: the reading to start from (the persisted one, or the vehicle's own).
    public init(startingAt metres: Double = 0) {
        self.metres = metres.isFinite && metres >= 0 ? metres : 0
    }

    /// What the odometer reads now: the metres, whether it is moving, and where the motion
    /// began. The same as the last ``add(_:)`` returned.
    public var reading: OdometerReading {
        let speedsAgree = speedCheck.trust != .distrusted
        return if case .moving = phase {
            OdometerReading(metres: metres, moving: true, departure: departure, movingSeconds: movingSeconds, speedsAgree: speedsAgree)
        } else {
            OdometerReading(metres: metres, moving: false, movingSeconds: movingSeconds, speedsAgree: speedsAgree)
        }
    }

    /// When the receiver's speeds disagree with its positions in most windows of the
    /// ``SpeedCheck`` (a unit error): their integral over the positions' displacement where
    /// they did, so that a command can say so once. Nil while they agree.
    public var speedDisagreement: Double? { speedCheck.disagreement }

    /// Takes the next position and says what the odometer reads after it.
    public mutating func add(_ point: TrackPoint) -> OdometerReading {
        guard var sample = OdometerSample(point) else { return reading }
        switch clock.judge(sample.time) {
        case .skip:
            return reading
        case .restart:
            restart(at: sample)
        case .later(let elapsed):
            if let previous {
                let chord = previous.distance(to: sample)
                sample.filterSpeed(after: previous, chord: chord, elapsed: elapsed)
                let fallback = chordSpeed.speed(at: sample)
                take(Step(
                    from: previous, to: sample, chord: chord, elapsed: elapsed, trust: speedCheck.trust,
                    speedsTellMotion: speedCheck.disagreement == nil, chordSpeed: fallback))
            } else {
                restart(at: sample)
            }
        }
        previous = sample
        return reading
    }

    /// The input ended: a motion still open is judged (``SpeedCheck``) so that what it covered
    /// counts. Positions may follow, as after a stop.
    public mutating func finish() -> OdometerReading {
        settle()
        return reading
    }

    /// Nothing before `sample` counts: the first position, or a clock that stepped back.
    private mutating func restart(at sample: OdometerSample) {
        settle()
        phase = .stationary(StandingPlace(sample))
        departure = nil
        chordSpeed.reset(at: sample)
    }

    /// A gap of ``OdometerRules/pauseSeconds`` whose ends are close: the motion stopped
    /// before it, and what the gap may hide is nobody's trip.
    private mutating func pause(at sample: OdometerSample) {
        phase = .stationary(StandingPlace(sample))
        departure = nil
        chordSpeed.reset(at: sample)
        settle()
    }

    /// A motion ended (or may have): the speed check's window is judged, and what waited
    /// for it counts.
    private mutating func settle() {
        speedCheck.close()
        resolvePending()
    }

    private mutating func take(_ step: Step) {
        switch phase {
        case .departing, .moving:
            if step.isPause { return pause(at: step.to) }
        case .unstarted, .stationary:
            break
        }
        switch phase {
        case .unstarted:
            restart(at: step.to)
        case .stationary(var place):
            guard step.isFast, step.isConsistent, !place.returnsHome(step.to) else {
                // Standing, drifting or jumped: it stands here now.
                place.take(step.to)
                phase = .stationary(place)
                return
            }
            // The motion began at the first moving position; after a gap (a sparse logger),
            // somewhere in the gap: its trip starts at the position before it.
            var departing = Departure(
                from: place, first: step.isGap ? step.from : step.to, metresBefore: metres, secondsBefore: movingSeconds)
            departing.take(step, first: true)
            phase = .departing(departing)
            checkOutside(step.to)
        case .departing(var departing):
            guard step.isFast, step.isConsistent, !departing.place.returnsHome(step.to) else {
                var place = departing.place
                place.take(step.to)
                phase = .stationary(place)
                return
            }
            departing.take(step, first: false)
            phase = .departing(departing)
            checkOutside(step.to)
        case .moving(let stop):
            check(step)
            // Slow steps that carry the receiver beyond reach of where they began are motion
            // too: a hiker on a steep path, a car in a queue.
            if step.isFast || stop.map({ $0.place.distance(to: step.to) > 2 * $0.place.separation(from: step.to) }) == true {
                if let stop { count(stop.covered) }
                count(step.covered)
                phase = .moving(stop: nil)
                return
            }
            var slowing = stop ?? PossibleStop(at: step.to)
            slowing.positions += 1
            slowing.covered.add(step.covered)
            if slowing.positions >= OdometerRules.stopPositions,
               step.to.time.seconds(since: slowing.since) >= OdometerRules.stopSeconds {
                phase = .stationary(StandingPlace(step.to))
                departure = nil
                settle()
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
        // A motion leads away: fixes that went out and came back (multipath bursts caught by
        // a sparse logger) covered a path far longer than where they got to.
        let leadsAway = departing.place.distance(to: sample) * OdometerRules.departureStraightness
            >= departing.covered.byBoth + departing.covered.byChord
        if let since = departing.outsideSince, departing.outsidePositions >= OdometerRules.confirmPositions,
           sample.time.seconds(since: since) >= OdometerRules.confirmSeconds, leadsAway {
            // The trip starts at the first moving position: the step into it (from standing
            // to moving, before the start) is the odometer's but not the trip's, unless it was
            // a gap (then the trip starts before it).
            let intoFirst = departing.intoFirst
            let firstMetres = intoFirst.byBoth + (intoFirst.metres(speedCheck.trust) ?? intoFirst.bySpeed)
            departure = departing.first.endpoint(odometer: departing.metresBefore + firstMetres, movingSeconds: departing.secondsBefore)
            speedCheck.take(departing.window)
            count(departing.covered)
            phase = .moving(stop: nil)
        } else {
            phase = .departing(departing)
        }
    }

    /// A step of a confirmed motion, for the speed check.
    private mutating func check(_ step: Step) {
        guard let speedMetres = step.speedMetres else { return }
        speedCheck.take(step, speedMetres: speedMetres)
    }

    /// Adds what confirmed motion covered: the metres the speed check says count, or, before
    /// its first verdict, into what waits for it.
    private mutating func count(_ covered: Covered) {
        movingSeconds += covered.seconds
        metres += covered.byBoth
        resolvePending()
        if let decided = covered.metres(speedCheck.trust) {
            metres += decided
        } else {
            pending.add(covered)
        }
    }

    private mutating func resolvePending() {
        guard let decided = pending.metres(speedCheck.trust) else { return }
        metres += decided
        pending = Covered()
    }
}
