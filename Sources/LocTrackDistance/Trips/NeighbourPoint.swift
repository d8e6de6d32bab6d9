import LocTrack

extension TripDetector {
    /// A position as the maximum speed needs it: a speed stands only where the positions
    /// around it bear it out (one fix 184 m off for two seconds is no top speed).
    struct NeighbourPoint: Sendable {
        let time: Timestamp
        let latitude: Double
        let longitude: Double
        let speed: Double?
        /// Metres from the position before it, when there was one since the detector began.
        var chordFromPrevious: Double?

        init(_ point: TrackPoint) {
            time = point.time
            latitude = point.latitude
            longitude = point.longitude
            speed = point.usableSpeed
        }

        func distance(to other: NeighbourPoint) -> Double {
            GreatCircle.distance(latitude, longitude, other.latitude, other.longitude)
        }

        /// `metres` from `earlier` to this position, as a speed.
        func speed(_ metres: Double?, since earlier: NeighbourPoint) -> Double? {
            let elapsed = time.seconds(since: earlier.time)
            guard let metres, elapsed > 0 else { return nil }
            return metres / elapsed
        }

        /// The speed at this position that its neighbours bear out, both ways:
        /// - the receiver's, when it is no more than ``TripRules/neighbourSpeedFactor`` × the
        ///   neighbours' (their speeds, else their chord speeds) + ``TripRules/neighbourSpeedMargin``:
        ///   a spike of one fix is not;
        /// - the slowest of the chord speeds into it, out of it and across it (from `before`
        ///   to `after`): a jump out and back is fast both ways and slow across.
        func consistentSpeed(before: NeighbourPoint?, after: NeighbourPoint) -> Speeds {
            let into = before.flatMap { speed(chordFromPrevious, since: $0) }
            let out = after.speed(after.chordFromPrevious, since: self)
            var speeds = Speeds()
            if let speed {
                let neighbours = max(before.flatMap { $0.speed ?? into } ?? 0, after.speed ?? out ?? 0)
                if speed <= TripRules.neighbourSpeedFactor * neighbours + TripRules.neighbourSpeedMargin { speeds.bySpeed = speed }
            }
            if let before, let into, let out, let across = after.speed(before.distance(to: after), since: before) {
                let chords = min(into, out, across)
                if chords <= OdometerRules.maximumPlausibleSpeed { speeds.byChord = chords }
            }
            return speeds
        }
    }
}
