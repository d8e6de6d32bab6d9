import LocTrack

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
        /// The first position of the motion: the first moving one, or the one before it when
        /// the step into that was a gap.
        let first: OdometerSample
        /// The odometer and its moving seconds before the motion.
        let metresBefore: Double
        let secondsBefore: Double
        /// What the steps covered since it stood, added when the motion is confirmed; the
        /// seconds from the first position on (the trip starts there).
        var covered = Covered()
        /// What the step into the first moving position covered when that is before ``first``
        /// (in ``covered`` too): not the trip's.
        var intoFirst = Covered()
        /// Their speeds and positions, for the speed check once the motion is confirmed.
        var window = SpeedCheck.Window()
        /// The time of the first of the positions in a row beyond reach of `place`.
        var outsideSince: Timestamp?
        var outsidePositions = 0

        init(from place: StandingPlace, first: OdometerSample, metresBefore: Double, secondsBefore: Double) {
            self.place = place
            self.first = first
            self.metresBefore = metresBefore
            self.secondsBefore = secondsBefore
        }

        mutating func take(_ step: Step, first: Bool) {
            var stepCovered = step.covered
            if first, !step.isGap {
                stepCovered.seconds = 0
                intoFirst = stepCovered
            }
            covered.add(stepCovered)
            if let speedMetres = step.speedMetres { window.take(step, speedMetres: speedMetres) }
        }
    }

    struct PossibleStop: Sendable {
        /// The time of the first slow position.
        let since: Timestamp
        /// Where it is: a slow position beyond reach of it moved on.
        let place: StandingPlace
        var positions = 0
        /// What the slow steps covered, added if the motion resumes.
        var covered = Covered()

        init(at sample: OdometerSample) {
            since = sample.time
            place = StandingPlace(sample)
        }
    }
}
