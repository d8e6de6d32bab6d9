import Glibc
import LocTrack
import LocTrackDistance
import LocTrackTestSupport

/// How a simulated receiver gets a ``Trajectory`` wrong: what it reports for each epoch.
///
/// Position errors add up from white noise, a Gauss-Markov process (errors that wander
/// and return, as satellite geometry changes), a random walk, and multipath bursts (the
/// fix jumps tens to hundreds of metres away for some seconds while the receiver reports
/// a bogus speed of a few m/s). Speeds are the true speed plus noise while moving and a
/// small Doppler noise (Rayleigh) while standing.
struct Receiver {
    var whiteNoise = 0.0
    var markovSigma = 0.0
    var markovSeconds = 60.0
    var randomWalkStep = 0.0
    /// The `eph` reported with every fix (a figure in `ephRange` per fix).
    var ephRange = 8.0...12.0
    var movingSpeedNoise = 0.1
    /// The Rayleigh scale of the speed a standing receiver reports (m/s).
    var standingSpeedNoise = 0.12
    /// Mean seconds between multipath bursts; 0 for none.
    var burstEvery = 0.0
    var burstSeconds = 3.0...10.0
    var burstMetres = 50.0...200.0
    var burstSpeed = 1.0...4.0
    /// Whether fixes carry the receiver's speed (GPX from other programs often does not).
    var reportsSpeed = true

    static let origin = (latitude: 47.3769, longitude: 8.5417)
    static let start = Timestamp(seconds: 1_767_225_600)  // 2026-01-01T00:00:00Z

    /// The fixes for `trajectory`, with `seed` deciding every error.
    /// - Parameter dropping: epochs (by seconds since the start) that produce no fix, as in a tunnel.
    func fixes(for trajectory: Trajectory, seed: UInt64, dropping: ClosedRange<Double>? = nil) -> [TrackPoint] {
        var random = SplitMix64(seed: seed)
        var markov = (east: 0.0, north: 0.0)
        var walk = (east: 0.0, north: 0.0)
        var burst: (until: Double, east: Double, north: Double)?
        let decay = markovSigma > 0 ? exp(-trajectory.interval / markovSeconds) : 0
        let drive = markovSigma * (1 - decay * decay).squareRoot()
        var points: [TrackPoint] = []
        points.reserveCapacity(trajectory.epochs.count)
        for epoch in trajectory.epochs {
            markov = (markov.east * decay + random.gaussian(drive), markov.north * decay + random.gaussian(drive))
            walk = (walk.east + random.gaussian(randomWalkStep), walk.north + random.gaussian(randomWalkStep))
            if let current = burst, epoch.seconds >= current.until { burst = nil }
            if burst == nil, burstEvery > 0, random.uniform(0, 1) < trajectory.interval / burstEvery {
                let bearing = random.uniform(0, 2 * .pi), metres = random.uniform(burstMetres.lowerBound, burstMetres.upperBound)
                burst = (epoch.seconds + random.uniform(burstSeconds.lowerBound, burstSeconds.upperBound),
                         metres * sin(bearing), metres * cos(bearing))
            }
            let east = epoch.east + random.gaussian(whiteNoise) + markov.east + walk.east + (burst?.east ?? 0)
            let north = epoch.north + random.gaussian(whiteNoise) + markov.north + walk.north + (burst?.north ?? 0)
            var speed: Double
            if burst != nil {
                speed = random.uniform(burstSpeed.lowerBound, burstSpeed.upperBound)
            } else if epoch.speed > 0 {
                speed = max(0, epoch.speed + random.gaussian(movingSpeedNoise))
            } else {
                speed = hypot(random.gaussian(standingSpeedNoise), random.gaussian(standingSpeedNoise))
            }
            let eph = random.uniform(ephRange.lowerBound, ephRange.upperBound)
            if let dropping, dropping.contains(epoch.seconds) { continue }
            points.append(Self.point(seconds: epoch.seconds, east: east, north: north, speed: reportsSpeed ? speed : nil, eph: eph))
        }
        return points
    }

    /// A fix at `east`, `north` metres from ``origin``, `seconds` after ``start``.
    static func point(seconds: Double, east: Double, north: Double, speed: Double?, eph: Double? = 10) -> TrackPoint {
        let degrees = 180 / Double.pi
        let radius = 6_371_008.8
        let whole = seconds.rounded(.down)
        return TrackPoint(
            time: Timestamp(seconds: start.seconds + Int64(whole), nanoseconds: Int32(((seconds - whole) * 1e9).rounded())),
            latitude: origin.latitude + north / radius * degrees,
            longitude: origin.longitude + east / (radius * cos(origin.latitude / degrees)) * degrees,
            speed: speed, horizontalError: eph)
    }
}

/// What a drive measures to: the odometer, the naive sum of distances between consecutive
/// fixes (what Traccar's `DistanceHandler` adds), and the truth.
struct Measured: CustomStringConvertible {
    let fixes: Int
    let naive: Double
    let odometer: Double
    let truth: Double

    init(_ points: [TrackPoint], truth: Double, startingAt metres: Double = 0) {
        var odometer = Odometer(startingAt: metres)
        for point in points { _ = odometer.add(point) }
        fixes = points.count
        naive = NaiveSum.metres(points)
        self.odometer = odometer.reading.metres - metres
        self.truth = truth
    }

    /// The odometer's error as a fraction of the truth.
    var relativeError: Double { abs(odometer - truth) / truth }

    var description: String {
        "fixes \(fixes), naive \(Figure.metres(naive)) m, odometer \(Figure.metres(odometer)) m, truth \(Figure.metres(truth)) m"
    }
}

enum NaiveSum {
    /// The sum of great-circle distances between consecutive points (the haversine, as
    /// Traccar's DistanceHandler does), with no check of any kind.
    static func metres(_ points: [TrackPoint]) -> Double {
        var sum = 0.0
        for (before, after) in zip(points, points.dropFirst()) {
            sum += haversine(before.latitude, before.longitude, after.latitude, after.longitude)
        }
        return sum
    }

    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        Haversine.metres(lat1, lon1, lat2, lon2)
    }
}

enum Figure {
    /// Metres to one decimal, for the figures the tests print.
    static func metres(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        let sign = tenths < 0 ? "-" : ""
        let magnitude = Int64(abs(tenths))
        return "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
