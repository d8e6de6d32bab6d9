import LocTrack
import LocTrackDistance

/// Feeds fixes through an ``Odometer`` and a ``TripDetector``, as `stream` and
/// `loctrack trips` do, and collects the events.
struct TripRun {
    private(set) var started: [TripEndpoint] = []
    private(set) var trips: [TripSummary] = []
    /// Seconds since ``Receiver/start`` of the positions at which each `.started` was decided.
    private(set) var startDecidedAt: [Double] = []

    init(_ fixes: [TrackPoint]) {
        var odometer = Odometer()
        var detector = TripDetector()
        for fix in fixes {
            let reading = odometer.add(fix)
            for event in detector.add(fix, reading: reading) { note(event, at: fix.time) }
        }
        for event in detector.finish(odometer.finish()) { note(event, at: fixes.last?.time ?? Receiver.start) }
    }

    private mutating func note(_ event: TripEvent, at time: Timestamp) {
        switch event {
        case .started(let endpoint, _):
            started.append(endpoint)
            startDecidedAt.append(time.seconds(since: Receiver.start))
        case .ended(let summary):
            trips.append(summary)
        }
    }

    /// Each trip's start and end in seconds since ``Receiver/start``.
    var spans: [ClosedRange<Double>] {
        trips.map { $0.start.time.seconds(since: Receiver.start)...$0.end.time.seconds(since: Receiver.start) }
    }
}

extension Receiver {
    /// A receiver that makes no error at all, so that trips' times are exact.
    static let perfect = Receiver(
        ephRange: 10...10, movingSpeedNoise: 0, standingSpeedNoise: 0)
}
