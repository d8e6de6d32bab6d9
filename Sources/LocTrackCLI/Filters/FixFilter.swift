import LocTrack
import LocTrackFormats
import LocTrackSinks

/// Which fixes `stream` delivers, applied in this order: accuracy, then distance,
/// then interval. A fix that fails one is dropped and counts for nothing (not for
/// `--count`, not as the last delivered fix).
struct FixFilter {
    /// The largest acceptable `eph` in metres; a fix without one fails.
    var minimumAccuracy: Double?
    /// Drop a fix closer than this, in metres, to the last fix delivered, so slow drift adds up.
    var minimumDistance: Double?
    /// At most one fix per this many seconds of receiver time: the first of each interval.
    var intervalSeconds: Double?

    private(set) var lastDelivered: Fix?

    init(minimumAccuracy: Double? = nil, minimumDistance: Double? = nil, intervalSeconds: Double? = nil) {
        self.minimumAccuracy = minimumAccuracy
        self.minimumDistance = minimumDistance
        self.intervalSeconds = intervalSeconds
    }

    /// Whether to deliver `fix`; a delivered fix becomes the reference for the next.
    mutating func accept(_ fix: Fix) -> Bool {
        guard fix.meets(minimumAccuracy: minimumAccuracy) else { return false }
        if let last = lastDelivered {
            if let minimumDistance, fix.distance(to: last) < minimumDistance { return false }
            if let intervalSeconds, fix.time >= last.time, fix.time.seconds(since: last.time) < intervalSeconds {
                return false
            }
        }
        lastDelivered = fix
        return true
    }
}
