/// Marks fixes taken while the receiver stays put, like CoreLocation's
/// `CLLocationUpdate.isStationary`.
///
/// A fix is stationary when, for at least ``stillSeconds`` of receiver time,
/// every fix of the device stayed within the fix's own horizontal error
/// estimate (`eph`; 10 m when it has none) of where the still period began,
/// and the receiver does not report a speed of ``movingSpeed`` or more. The
/// first fix beyond that radius starts a new period from there.
struct StationaryDetector {
    static let stillSeconds = 3.0
    static let movingSpeed = 0.5
    static let defaultRadius = 10.0

    private var anchors = DeviceTable<Fix>()

    mutating func mark(_ fix: Fix) -> Fix {
        let key = fix.device ?? ""
        guard let index = anchors.index(of: key) else {
            // Bounded like the epoch merger's devices: garbage device names cannot grow memory.
            if anchors.count >= EpochMerger.maximumDevices { anchors.removeAll() }
            _ = anchors.append(key, fix)
            return fix
        }
        // The anchor is read in place, never copied out: each copy of a `Fix` runs its
        // own copy code, and at 1 Hz that code is what a fix costs (performance.md).
        let radius = fix.horizontalError ?? Self.defaultRadius
        let backwards = fix.time < anchors[at: index].time
        if backwards || fix.distance(to: anchors[at: index]) > radius {
            anchors[at: index] = fix
            return fix
        }
        let moving = (fix.speed ?? 0) >= Self.movingSpeed
        let still = fix.time.seconds(since: anchors[at: index].time) >= Self.stillSeconds
        return still && !moving ? fix.marked(stationary: true) : fix
    }
}
