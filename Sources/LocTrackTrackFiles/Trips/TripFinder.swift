package import LocTrackDistance

/// The trips of a merged track: each point through the ``Odometer`` and the
/// ``TripDetector``, Traccar's rules (docs/distance.md), and at the end of the track the
/// trip still open, ended at its last moving point.
package enum TripFinder {
    /// Calls `found` with each trip as the detector ends it, in time order.
    package static func trips(in points: some Sequence<TrackPoint>, _ found: (TripSummary) -> Void) {
        var odometer = Odometer()
        var detector = TripDetector()
        func take(_ events: [TripEvent]) {
            for case .ended(let trip) in events { found(trip) }
        }
        for point in points {
            let reading = odometer.add(point)
            take(detector.add(point, reading: reading))
        }
        take(detector.finish(odometer.finish()))
    }

    /// The trips of `points`, in time order.
    package static func trips(in points: some Sequence<TrackPoint>) -> [TripSummary] {
        var trips: [TripSummary] = []
        self.trips(in: points) { trips.append($0) }
        return trips
    }
}
