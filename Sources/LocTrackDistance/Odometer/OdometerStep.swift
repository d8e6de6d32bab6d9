extension Odometer {
    /// One step from the previous position to the next.
    struct Step {
        let from: OdometerSample
        let to: OdometerSample
        /// The great-circle distance of the step: most rules need it, so it is measured once.
        let chord: Double
        let elapsed: Double
        /// Whether the receiver's speeds count for distance (``SpeedCheck``): not while the
        /// windows say they disagree.
        let trust: SpeedCheck.Trust
        /// Whether they tell moving from standing: unless most windows disagreed (a unit
        /// error). One window that did (a multipath jump in it) does not make a parked
        /// receiver's noise a walk.
        let speedsTellMotion: Bool
        /// ``ChordSpeed``'s speed at `to`: the displacement over about ten seconds.
        let chordSpeed: Double

        /// The receiver's speeds at the two ends, when `to` has one and they count for distance.
        var receiverSpeeds: (from: Double, to: Double)? {
            trust == .distrusted ? nil : speeds
        }

        /// The receiver's speeds at the two ends, when `to` has one and they tell motion.
        var motionSpeeds: (from: Double, to: Double)? {
            speedsTellMotion ? speeds : nil
        }

        private var speeds: (from: Double, to: Double)? {
            guard let speed = to.receiverSpeed else { return nil }
            return (from.receiverSpeed ?? speed, speed)
        }

        var isGap: Bool { elapsed > OdometerRules.gapSeconds }

        /// A gap of ``OdometerRules/pauseSeconds`` or more whose ends are within
        /// ``OdometerRules/pauseRadius``: the logger paused while the receiver stood.
        var isPause: Bool { elapsed >= OdometerRules.pauseSeconds && chord <= OdometerRules.pauseRadius }

        var isPlausible: Bool { chord <= OdometerRules.maximumPlausibleSpeed * elapsed }

        var isFast: Bool {
            let moving = OdometerRules.movingSpeed
            guard isGap, let speeds = motionSpeeds else { return (motionSpeeds?.to ?? chordSpeed) >= moving }
            // A long step's ends say little either way (a bike at a red light after 500 m; a
            // parked receiver's Doppler noise over 0.5 m/s): the chord must cover the step at a
            // moving speed too, and leave both error circles, twice as far when the speeds at
            // both ends say standing (a parked receiver's fix wanders meanwhile).
            guard chord >= moving * elapsed else { return false }
            if speeds.to >= moving { return true }
            var reach = from.separation(from: to)
            if speeds.from < moving { reach *= 2 }
            return chord > reach
        }

        /// Whether the speeds explain the step: its chord is no longer than the speeds allow
        /// plus the error circle. Without the receiver's speed, or across a gap, only
        /// plausibility is known.
        var isConsistent: Bool {
            guard isPlausible else { return false }
            guard let speeds = motionSpeeds else { return true }
            if isGap {
                // Across a gap the speeds at its ends bound the mean speed between them only
                // through what a vehicle can do meanwhile: speed up and slow down again at
                // ``OdometerRules/maximumAcceleration``. A fix 177 m from one 10 s before, both
                // at 2 to 4 m/s, is a multipath jump; 500 m in 60 s between two red lights is not.
                let headroom = OdometerRules.maximumAcceleration * elapsed / 4
                return chord <= ((speeds.from + speeds.to) / 2 + headroom) * elapsed + from.largerRadius(to)
            }
            let fastest = max(speeds.from, speeds.to)
            return chord <= OdometerRules.jumpFactor * fastest * elapsed + from.largerRadius(to)
        }

        /// The receiver's speeds integrated over the step (the trapezoid of the speeds at its
        /// ends: exact for a constant acceleration), when `to` has a speed: for the speed
        /// check, whatever the step's length.
        var speedMetres: Double? {
            guard let speed = to.receiverSpeed else { return nil }
            return (speed + (from.receiverSpeed ?? speed)) / 2 * elapsed
        }

        /// What the step covered: by the speeds when they may count and the step is short,
        /// else its chord; nothing for a chord at an implausible speed.
        var covered: Covered {
            let byChord = isPlausible ? chord : 0
            guard !isGap, let speeds = receiverSpeeds else {
                return Covered(byBoth: byChord, seconds: elapsed)
            }
            return Covered(bySpeed: (speeds.from + speeds.to) / 2 * elapsed, byChord: byChord, seconds: elapsed)
        }
    }
}
