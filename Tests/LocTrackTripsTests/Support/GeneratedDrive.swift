import LocTrackTestSupport
import LocTrack
import LocTrackDistance
import Foundation

/// A day out, generated at 1 Hz from a fixed seed: parked with the fix wandering a few metres
/// (as every receiver's does), a straight drive of 6 km east at 15 m/s, parked again, the
/// drive back, parked. Two trips of 6,000 m and 400 s each, whatever the engines' details.
struct GeneratedDrive {
    static let start = Timestamp(seconds: 1_795_392_000)  // 2026-11-23T00:00:00Z
    static let origin = (latitude: 52.5, longitude: 13.4)
    static let parkedSeconds = 300
    static let drivingSeconds = 400
    static let speed = 15.0
    static var tripLength: Double { speed * Double(drivingSeconds) }

    /// When each trip's driving begins and ends, seconds after ``start``.
    static let drives = [
        (start: parkedSeconds, end: parkedSeconds + drivingSeconds - 1),
        (start: 2 * parkedSeconds + drivingSeconds, end: 2 * parkedSeconds + 2 * drivingSeconds - 1),
    ]

    let fixes: [Fix]

    init(device: String? = "/dev/ttyACM0", seed: UInt64 = 1) {
        var random = SplitMix64(seed: seed)
        var fixes: [Fix] = []
        var second = 0
        var east = 0.0
        func add(east: Double, north: Double, speed: Double) {
            let (latitude, longitude) = Self.degrees(east: east, north: north)
            fixes.append(Fix(
                time: Timestamp(seconds: Self.start.seconds + Int64(second)), mode: .threeD, device: device,
                latitude: latitude, longitude: longitude, altitudeHAE: 80, altitudeMSL: 40, horizontalError: 6,
                speed: speed, track: 90))
            second += 1
        }
        func park() {
            for _ in 0..<Self.parkedSeconds {
                add(east: east + random.gaussian(2.5), north: random.gaussian(2.5), speed: 0.2)
            }
        }
        func drive(_ direction: Double) {
            for _ in 0..<Self.drivingSeconds {
                east += direction * Self.speed
                add(east: east, north: 0, speed: Self.speed)
            }
        }
        park()
        drive(1)
        park()
        drive(-1)
        park()
        self.fixes = fixes
    }

    /// The points the engines see for the fixes, as `loctrack trips` reads them.
    var points: [TrackPoint] { fixes.map(TrackPoint.init) }

    /// The position `east` and `north` metres from ``origin`` (flat earth: a few km).
    static func degrees(east: Double, north: Double) -> (Double, Double) {
        let metresPerDegree = 111_195.0
        let latitude = origin.latitude + north / metresPerDegree
        let longitude = origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180))
        // Nine decimals, as the encoders write them, so that a value read back is the value written.
        return (rounded(latitude), rounded(longitude))
    }

    static func rounded(_ degrees: Double) -> Double {
        (degrees * 1e9).rounded() / 1e9
    }
}
