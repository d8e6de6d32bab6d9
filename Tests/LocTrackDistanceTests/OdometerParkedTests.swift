import LocTrack
import LocTrackDistance
import Testing

/// A parked hour at 1 Hz, with each kind of error a parked receiver makes: the odometer
/// gains at most a metre where the naive sum gains kilometres.
@Suite("Odometer: a parked hour")
struct OdometerParkedTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let receiver: Receiver
        let seed: UInt64
        /// The naive sum is at least this (the error is big enough to matter).
        let naiveAtLeast: Double
        var testDescription: String { "\(name), seed \(seed)" }
    }

    static let cases: [Case] = [UInt64(1), 2, 3].flatMap { seed in
        [
            Case(name: "white noise 3 m", receiver: Receiver(whiteNoise: 3), seed: seed, naiveAtLeast: 10_000),
            Case(name: "random walk (0.4 m a second, wandering some 25 m)",
                 receiver: Receiver(whiteNoise: 0.5, randomWalkStep: 0.4), seed: seed, naiveAtLeast: 2_000),
            Case(name: "Gauss-Markov wander, 30 m, 5 min", receiver: Receiver(whiteNoise: 0.5, markovSigma: 30, markovSeconds: 300),
                 seed: seed, naiveAtLeast: 5_000),
            Case(name: "multipath bursts 50-200 m every 4 min", receiver: Receiver(whiteNoise: 2, burstEvery: 240), seed: seed,
                 naiveAtLeast: 2_000),
            Case(name: "all of them", receiver: Receiver(whiteNoise: 3, markovSigma: 15, markovSeconds: 120, randomWalkStep: 0.2,
                                                           burstEvery: 180), seed: seed, naiveAtLeast: 10_000),
            Case(name: "all of them, noisy Doppler (0.3 m/s)",
                 receiver: Receiver(whiteNoise: 3, markovSigma: 15, markovSeconds: 120, standingSpeedNoise: 0.3, burstEvery: 180),
                 seed: seed, naiveAtLeast: 10_000),
        ]
    }

    @Test("Given a parked hour, when the odometer reads it, then it gains at most 1 m while the naive sum gains kilometres",
          arguments: cases)
    func parkedHourGainsAtMostOneMetre(_ scenario: Case) {
        let fixes = scenario.receiver.fixes(for: Drives.parkedHour(), seed: scenario.seed)
        let measured = Measured(fixes, truth: 0)
        print("distance-figure: parked hour, \(scenario.testDescription): \(measured)")
        #expect(measured.fixes == 3601)
        #expect(measured.odometer <= 1)
        #expect(measured.naive >= scenario.naiveAtLeast)
    }

    @Test("Given a parked hour sampled every 10 s or every 60 s, when the odometer reads it, then it gains at most 1 m",
          arguments: cases, [10, 60])
    func sparseParkedHourGainsAtMostOneMetre(_ scenario: Case, every seconds: Int) {
        // A logger on a battery setting, or gpsd fed by a sparse source: the same receiver's
        // fixes, one in `seconds` kept. Multipath bursts last 3 to 10 s: one fix of a burst,
        // far off and fast, is then alone between fixes at the place.
        let fixes = scenario.receiver.fixes(for: Drives.parkedHour(), seed: scenario.seed)
        let kept = fixes.enumerated().filter { $0.offset % seconds == 0 }.map(\.element)
        let measured = Measured(kept, truth: 0)
        print("distance-figure: parked hour, a fix every \(seconds) s, \(scenario.testDescription): \(measured)")
        #expect(measured.fixes == 3600 / seconds + 1)
        #expect(measured.odometer <= 1)
        #expect(TripRun(kept).trips.isEmpty)
    }

    @Test("Given a parked hour with no speed in the fixes, when the odometer reads it, then white noise adds nothing but a wandering fix looks like a walk",
          arguments: [UInt64(1), 2, 3])
    func parkedHourWithoutSpeeds(_ seed: UInt64) {
        // Without the receiver's speed, motion is judged from displacement alone: noise that
        // stays in its error circles adds nothing; a fix that wanders at a walker's pace is
        // counted. The limit of chords, documented in docs/distance.md.
        let white = Measured(Receiver(whiteNoise: 3, reportsSpeed: false).fixes(for: Drives.parkedHour(), seed: seed), truth: 0)
        let wander = Measured(Receiver(whiteNoise: 0.5, markovSigma: 30, markovSeconds: 300, reportsSpeed: false)
            .fixes(for: Drives.parkedHour(), seed: seed), truth: 0)
        print("distance-figure: parked hour, no speed in the fixes, white noise 3 m, seed \(seed): \(white)")
        print("distance-figure: parked hour, no speed in the fixes, Gauss-Markov wander, 30 m, 5 min, seed \(seed): \(wander)")
        #expect(white.odometer <= 1)
        #expect(wander.odometer > 1_000)
        #expect(wander.odometer < wander.naive)
    }

    @Test("Given a parked hour, when the odometer reads it, then it never says moving")
    func parkedHourNeverMoves() {
        let receiver = Receiver(whiteNoise: 3, markovSigma: 15, markovSeconds: 120, burstEvery: 180)
        var odometer = Odometer()
        let moving = receiver.fixes(for: Drives.parkedHour(), seed: 7).filter { odometer.add($0).moving }
        #expect(moving.isEmpty)
    }
}
