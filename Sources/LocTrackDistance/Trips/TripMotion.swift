import LocTrack

extension TripDetector {
    /// A motion that is, or may become, a trip.
    struct Motion: Sendable {
        let start: TripEndpoint
        let device: String?
        /// The last position at which the odometer advanced.
        private(set) var end: TripEndpoint
        /// The fastest speeds so far, and as of ``end``.
        private var fastest: Speeds
        private var fastestAtEnd: Speeds
        /// Whether the receiver's speeds agreed with its positions at the last position: the
        /// maximum comes from them then, else from the chords.
        private var speedsAgree = true

        init(start: TripEndpoint, fastest: Speeds, device: String?) {
            self.start = start
            self.end = start
            self.fastest = fastest
            self.fastestAtEnd = fastest
            self.device = device
        }

        /// A position's speed, judged once the position after it came.
        mutating func note(speed: Speeds, at time: Timestamp) {
            fastest.take(speed)
            if time <= end.time { fastestAtEnd.take(speed) }
        }

        mutating func note(_ point: TrackPoint, reading: OdometerReading, advanced: Bool) {
            speedsAgree = reading.speedsAgree
            if advanced {
                end = TripEndpoint(time: point.time, latitude: point.latitude, longitude: point.longitude, odometer: reading.metres,
                                   movingSeconds: reading.movingSeconds)
                fastestAtEnd = fastest
            } else if !reading.moving {
                settle(reading)
            }
        }

        /// The metres the odometer added after the motion's last moving position, once it
        /// stopped: what waited for its speed check (``Odometer/speedDisagreement``) belongs
        /// to the motion.
        mutating func settle(_ reading: OdometerReading) {
            speedsAgree = reading.speedsAgree
            if reading.metres > end.odometer { end.odometer = reading.metres }
        }

        var summary: TripSummary {
            var summary = TripSummary(start: start, end: end, distance: max(0, end.odometer - start.odometer), maxSpeed: 0, device: device)
            let fastest = (speedsAgree ? fastestAtEnd.bySpeed : nil) ?? fastestAtEnd.byChord ?? 0
            summary.maxSpeed = max(fastest, summary.averageSpeed)
            return summary
        }
    }

    /// A position's speed two ways: the receiver's, and the chords'; the fastest of each.
    struct Speeds: Sendable, Equatable {
        var bySpeed: Double?
        var byChord: Double?

        mutating func take(_ other: Speeds) {
            bySpeed = Self.faster(bySpeed, other.bySpeed)
            byChord = Self.faster(byChord, other.byChord)
        }

        static func faster(_ a: Double?, _ b: Double?) -> Double? {
            guard let a else { return b }
            guard let b else { return a }
            return max(a, b)
        }
    }
}
