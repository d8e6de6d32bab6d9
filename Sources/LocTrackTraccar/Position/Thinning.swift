public import LocTrack
public import LocTrackDistance

/// Which fixes a Traccar uplink sends, for links metered by the request (1 Hz is 86,400
/// requests a day), as Traccar's own client thins: a fix goes when `interval` seconds have
/// passed since the last one sent, or when it is `distance` metres from it, and always
/// at a change of motion (the odometer's moving state) and the first. Neither given:
/// every fix. Pure, on the fixes' own times: a replay thins the same way.
///
/// The odometer counts every fix, sent or not: what it says travels with the next one sent.
public struct Thinning: Sendable, Equatable {
    /// Seconds between positions sent; nil: no interval rule.
    public let interval: Double?
    /// Metres from the last position sent; nil: no distance rule.
    public let distance: Double?
    /// The last fix sent, and whether it was sent moving.
    private var lastSent: Fix?
    private var lastMoving = false

    /// - Parameters:
    ///   - interval: seconds (`--traccar-interval`), more than 0; nil for none.
    ///   - distance: metres (`--traccar-distance`), more than 0; nil for none.
    public init(interval: Double? = nil, distance: Double? = nil) {
        self.interval = interval
        self.distance = distance
    }

    /// Every fix is sent.
    public var sendsEveryFix: Bool { interval == nil && distance == nil }

    /// Whether to send `fix`, whose odometer reading is `reading`; remembers it if so.
    public mutating func shouldSend(_ fix: Fix, reading: OdometerReading) -> Bool {
        let send = decide(fix, moving: reading.moving)
        if send {
            lastSent = fix
            lastMoving = reading.moving
        }
        return send
    }

    private func decide(_ fix: Fix, moving: Bool) -> Bool {
        guard !sendsEveryFix, let lastSent else { return true }
        if moving != lastMoving { return true }
        let elapsed = fix.time.seconds(since: lastSent.time)
        // A clock that went back is no reason to wait: the interval counts from the fix.
        if let interval, elapsed >= interval || elapsed < 0 { return true }
        if let distance, lastSent.distance(to: fix) >= distance { return true }
        return false
    }
}
