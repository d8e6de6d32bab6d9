package import LocTrackDistance

/// The trips of a merged track: each point through the ``Odometer`` and the
/// ``TripDetector``, Traccar's rules (docs/distance.md), and at the end of the track the
/// trip still open, ended at its last moving point.
package enum TripFinder {
    /// What the whole track measured, beside its trips.
    package struct Track: Sendable, Equatable {
        /// The odometer over the whole track, trips or not.
        package var metres: Double
        /// When the receiver's speeds disagreed with its positions: ``Odometer/speedDisagreement``.
        package var speedDisagreement: Double?
    }

    /// Calls `found` with each trip as the detector ends it, in time order.
    @discardableResult
    package static func trips(in points: some Sequence<TrackPoint>, _ found: (TripSummary) -> Void) -> Track {
        var odometer = Odometer()
        var detector = TripDetector()
        func take(_ events: [TripEvent]) {
            for case .ended(let trip) in events { found(trip) }
        }
        for point in points {
            let reading = odometer.add(point)
            take(detector.add(point, reading: reading))
        }
        let last = odometer.finish()
        take(detector.finish(last))
        return Track(metres: last.metres, speedDisagreement: odometer.speedDisagreement)
    }

    /// The trips of `points`, in time order.
    package static func trips(in points: some Sequence<TrackPoint>) -> [TripSummary] {
        var trips: [TripSummary] = []
        self.trips(in: points) { trips.append($0) }
        return trips
    }
}
