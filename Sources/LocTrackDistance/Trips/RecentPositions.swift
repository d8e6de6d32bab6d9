import LocTrack

/// The positions of the last ``TripRules/stopSeconds``, bounded by count too: what the
/// trip end rule looks at, and where a trip's maximum speed before it was confirmed comes from.
struct RecentPositions: Sendable {
    struct Entry: Sendable {
        var time: Timestamp
        var latitude: Double
        var longitude: Double
        /// The fastest speeds among the positions this entry stands for (m/s), both ways.
        var speed = TripDetector.Speeds()
    }

    private var entries: [Entry] = []
    /// The index of the oldest entry: entries before it are dropped lazily, in bulk.
    private var start = 0

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        start = 0
    }

    mutating func append(_ entry: Entry) {
        if entries.count > start, let newest = entries.last, entry.time.seconds(since: newest.time) < TripRules.windowSpacing {
            // Within the spacing of the newest entry: the window keeps that one's position
            // (one every 0.25 s is plenty for a 200 m rule) and the faster of the speeds.
            entries[entries.count - 1].speed.take(entry.speed)
        } else {
            entries.append(entry)
        }
        while start < entries.count, entry.time.seconds(since: entries[start].time) > TripRules.stopSeconds { start += 1 }
        if entries.count - start > TripRules.windowCapacity { start = entries.count - TripRules.windowCapacity }
        // Compact once the dropped prefix is as large as what is kept: amortised O(1).
        if start > 0, start >= entries.count - start {
            entries.removeFirst(start)
            start = 0
        }
    }

    /// Notes the speed the newest position turned out to have (judged once the next came).
    mutating func noteNewest(speed: TripDetector.Speeds) {
        guard entries.count > start else { return }
        entries[entries.count - 1].speed.take(speed)
    }

    /// Whether every position in the window is within `metres` of the given position.
    func allWithin(_ metres: Double, ofLatitude latitude: Double, longitude: Double) -> Bool {
        entries[start...].allSatisfy { GreatCircle.distance($0.latitude, $0.longitude, latitude, longitude) < metres }
    }

    /// The fastest speed of the positions at or after `time`.
    func fastest(since time: Timestamp) -> TripDetector.Speeds {
        entries[start...].reduce(into: TripDetector.Speeds()) { fastest, entry in
            if entry.time >= time { fastest.take(entry.speed) }
        }
    }
}
