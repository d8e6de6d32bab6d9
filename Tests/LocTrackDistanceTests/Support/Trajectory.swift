import Glibc
import LocTrack

/// A true path, one epoch at a time, on a local flat plane (east and north metres from an
/// origin): what the vehicle really did, and how far it really went.
///
/// Speeds change by a constant acceleration within an epoch and headings only at epoch
/// boundaries, so the true length of each epoch is exactly the mean of its end speeds
/// times its duration (what the odometer's trapezoid computes from exact speeds).
struct Trajectory {
    struct Epoch {
        let seconds: Double
        let east: Double
        let north: Double
        let speed: Double
        /// Metres travelled since the first epoch.
        let travelled: Double
    }

    private(set) var epochs: [Epoch]
    let interval: Double
    private(set) var heading: Double = 0

    /// - Parameter interval: seconds between epochs (1 for 1 Hz).
    init(interval: Double = 1) {
        self.interval = interval
        epochs = [Epoch(seconds: 0, east: 0, north: 0, speed: 0, travelled: 0)]
    }

    var last: Epoch { epochs[epochs.count - 1] }
    var length: Double { last.travelled }
    var duration: Double { last.seconds }

    /// One epoch, the speed moving towards `target` by at most `acceleration` per second.
    mutating func step(towards target: Double, acceleration: Double) {
        let start = last
        let change = acceleration * interval
        let speed = start.speed < target ? min(target, start.speed + change) : max(target, start.speed - change)
        let metres = (start.speed + speed) / 2 * interval
        epochs.append(Epoch(
            seconds: start.seconds + interval, east: start.east + metres * sin(heading),
            north: start.north + metres * cos(heading), speed: speed, travelled: start.travelled + metres))
    }

    /// Stands still for `seconds` (from rest: call ``stop(deceleration:)`` first).
    mutating func stand(_ seconds: Double) {
        for _ in 0..<epochCount(seconds) { step(towards: 0, acceleration: 0) }
    }

    /// Speeds up (or down) to `speed` at `acceleration`.
    mutating func reach(_ speed: Double, acceleration: Double) {
        while abs(last.speed - speed) > 1e-9 { step(towards: speed, acceleration: acceleration) }
    }

    /// Keeps the speed for `seconds`, turning by `turn` radians per epoch.
    mutating func cruise(_ seconds: Double, turn: Double = 0) {
        for _ in 0..<epochCount(seconds) {
            heading += turn
            step(towards: last.speed, acceleration: 0)
        }
    }

    mutating func stop(deceleration: Double) { reach(0, acceleration: deceleration) }

    mutating func turn(by radians: Double) { heading += radians }

    private func epochCount(_ seconds: Double) -> Int { Int((seconds / interval).rounded()) }

    /// The trips a perfect receiver on this path makes: from the first to the last epoch at
    /// `movingSpeed` or more, a pause shorter than `pause` seconds not ending one.
    func tripSpans(movingSpeed: Double = 0.5, pause: Double = 180) -> [ClosedRange<Double>] {
        var spans: [ClosedRange<Double>] = []
        for epoch in epochs where epoch.speed >= movingSpeed {
            if let last = spans.last, epoch.seconds - last.upperBound < pause {
                spans[spans.count - 1] = last.lowerBound...epoch.seconds
            } else {
                spans.append(epoch.seconds...epoch.seconds)
            }
        }
        return spans
    }
}
