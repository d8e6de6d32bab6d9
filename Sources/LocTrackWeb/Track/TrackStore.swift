/// The track `/api/track` answers from: the latest ``capacity`` fixes as ``PackedTrackPoint``s,
/// oldest first, the recorded ones (`--track`) before the live ones.
///
/// A ring: when full, each new fix replaces the oldest, so a long run holds at most
/// `capacity` points (8 MB at the default) and appending never copies the track.
package struct TrackStore: Sendable {
    /// More than two days at 1 Hz (docs/http.md).
    package static let defaultCapacity = 200_000

    package let capacity: Int
    private var points: [PackedTrackPoint] = []
    /// Where the oldest point is once the ring is full.
    private var start = 0
    /// The newest time of the recorded fixes: a live fix at or before it is one of them
    /// (the recording and `serve` read the same gpsd) or older than the day so far.
    private var recordedUntil: Int64?

    package init(capacity: Int = TrackStore.defaultCapacity, recorded: [PackedTrackPoint] = []) {
        precondition(capacity > 0, "a track holds at least one point")
        self.capacity = capacity
        for point in recorded.suffix(capacity) { append(point) }
        recordedUntil = recorded.last?.time
    }

    package var count: Int { points.count }

    /// The newest point.
    package var last: PackedTrackPoint? {
        points.isEmpty ? nil : points[(start + points.count - 1) % points.count]
    }

    /// Adds a live fix's point; one that the recorded fixes already hold is skipped.
    package mutating func append(_ point: PackedTrackPoint) {
        if let recordedUntil, point.time <= recordedUntil { return }
        if points.count < capacity {
            points.append(point)
        } else {
            points[start] = point
            start = (start + 1) % capacity
        }
    }

    /// The points at or after `time` (milliseconds since 1970; nil: all), oldest first: a
    /// copy, so that encoding it needs no lock.
    ///
    /// Found from the newest backwards: fixes come in time order, so the answer is the
    /// newest points down to the first that is older. (A receiver whose clock jumped back
    /// has the fixes before the jump left out.)
    package func points(since time: Int64?) -> [PackedTrackPoint] {
        var first = points.count
        if let time {
            while first > 0, self[first - 1].time >= time { first -= 1 }
        } else {
            first = 0
        }
        guard first < points.count else { return [] }
        // Oldest first is `points[start...]` then `points[..<start]` (start is 0 until the ring is full).
        let physical = (start + first) % points.count
        guard physical >= start else { return Array(points[physical..<start]) }
        var result: [PackedTrackPoint] = []
        result.reserveCapacity(points.count - first)
        result += points[physical...]
        result += points[..<start]
        return result
    }

    /// The point `index` places from the oldest.
    private subscript(index: Int) -> PackedTrackPoint {
        points[(start + index) % points.count]
    }
}
