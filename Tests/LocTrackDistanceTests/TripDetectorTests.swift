import LocTrack
import LocTrackDistance
import Testing

/// Trips with Traccar's rules (200 m from the last stop starts one; nothing 200 m away in
/// 180 s ends it; a gap over an hour ends it), starting and ending at the first and last
/// moving fix.
@Suite("Trip detector")
struct TripDetectorTests {
    /// Stand 300 s, drive (a 30 s red light in the second leg), stand 600 s, drive, stand
    /// 600 s, drive, stand 300 s; accelerating at 1.5 m/s² to 15 m/s and braking at 2 m/s².
    static func driveWithTwoStops() -> Trajectory {
        var path = Trajectory()
        path.stand(300)
        path.reach(15, acceleration: 1.5)  // 301...310
        path.cruise(120)  // 311...430
        path.stop(deceleration: 2)  // 431...438: 13, 11, ..., 1, 0 m/s
        path.stand(600)  // 439...1038
        path.reach(15, acceleration: 1.5)  // 1039...1048
        path.cruise(60)
        path.stop(deceleration: 2)  // 1109...1116
        path.stand(30)  // a red light: 1117...1146
        path.reach(15, acceleration: 1.5)  // 1147...1156
        path.cruise(60)
        path.stop(deceleration: 2)  // 1217...1224
        path.stand(600)  // 1225...1824
        path.reach(15, acceleration: 1.5)  // 1825...1834
        path.cruise(90)
        path.stop(deceleration: 2)  // 1925...1932
        path.stand(300)
        return path
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let fixes: @Sendable () -> [TrackPoint]
        /// Each trip's first and last moving fix, seconds after the start.
        let spans: [ClosedRange<Double>]
        /// How far each trip's start and end may be from `spans` (0: exactly).
        let tolerance: Double
        /// Each trip's true length.
        let lengths: [Double]
        let maxSpeeds: [Double]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a drive with two stops and a red light, no receiver error",
            fixes: { Receiver.perfect.fixes(for: driveWithTwoStops(), seed: 1) },
            // The last moving fix of each leg is the one at 1 m/s before the stop; the 0.5 m
            // rolled at under 0.5 m/s into the red light is a stop's, not counted.
            spans: [301...437, 1039...1223, 1825...1931], tolerance: 0,
            // 75 m speeding up, less the 0.75 m into the first moving fix (before the trip's
            // start), cruising, and braking to 1 m/s (56 m); the third leg cruises 90 s. Inside
            // a trip, a leg after a red light keeps its first step.
            lengths: [74.25 + 1800 + 56, 74.25 + 900 + 56 + 75 + 900 + 56, 74.25 + 1350 + 56],
            maxSpeeds: [15, 15, 15]),
        Case(
            name: "the same drive from a typical receiver",
            fixes: { Drives.typicalReceiver.fixes(for: driveWithTwoStops(), seed: 2) },
            spans: [301...437, 1039...1223, 1825...1931], tolerance: 8,
            lengths: [1931, 2062, 1481], maxSpeeds: [15, 15, 15]),
        Case(
            name: "a parked hour with every kind of error",
            fixes: {
                Receiver(whiteNoise: 3, markovSigma: 15, markovSeconds: 120, randomWalkStep: 0.2, burstEvery: 180)
                    .fixes(for: Drives.parkedHour(), seed: 3)
            },
            spans: [], tolerance: 0, lengths: [], maxSpeeds: []),
        Case(
            name: "two drives 2 h apart with no fix in between",
            fixes: { Receiver.perfect.fixes(for: twoDrivesApart(), seed: 4, dropping: 741...7940) },
            spans: [61...677, 7961...8577], tolerance: 0,
            lengths: [74.25 + 9000 + 56, 74.25 + 9000 + 56], maxSpeeds: [15, 15]),
        Case(
            name: "a walk round a 300 m by 200 m block, no receiver error",
            fixes: { Receiver.perfect.fixes(for: walkRoundTheBlock(), seed: 5) },
            // The 0.35 m into the first moving fix (0 to 0.7 m/s) is before the trip's start.
            spans: [301...1017], tolerance: 0, lengths: [blockWalkLength - 0.35], maxSpeeds: [1.4]),
        Case(
            name: "a walk round the block from a typical receiver",
            fixes: { Drives.typicalReceiver.fixes(for: walkRoundTheBlock(), seed: 6) },
            spans: [301...1017], tolerance: 15, lengths: [blockWalkLength], maxSpeeds: [1.4]),
    ]

    @Test("Given a track, when its fixes go through the odometer and the trip detector, then the trips are the expected ones",
          arguments: cases)
    func tripsAreTheExpectedOnes(_ scenario: Case) throws {
        let run = TripRun(scenario.fixes())
        print("distance-figure: trips, \(scenario.name): \(run.trips.map { "\(Figure.metres($0.distance)) m in \($0.duration) s" })")
        try #require(run.trips.count == scenario.spans.count)
        #expect(run.started == run.trips.map(\.start))
        for (index, trip) in run.trips.enumerated() {
            let span = run.spans[index], expected = scenario.spans[index]
            #expect(abs(span.lowerBound - expected.lowerBound) <= scenario.tolerance, "trip \(index) starts at \(span.lowerBound)")
            #expect(abs(span.upperBound - expected.upperBound) <= scenario.tolerance, "trip \(index) ends at \(span.upperBound)")
            let lengthTolerance = scenario.tolerance == 0 ? 1e-6 : 0.01 * scenario.lengths[index]
            #expect(abs(trip.distance - scenario.lengths[index]) <= lengthTolerance, "trip \(index) is \(trip.distance) m")
            #expect(abs(trip.maxSpeed - scenario.maxSpeeds[index]) <= (scenario.tolerance == 0 ? 1e-9 : 0.5))
            #expect(trip.distance == trip.end.odometer - trip.start.odometer)
        }
    }

    @Test("Given the drive with two stops from a 10 Hz receiver, when it goes through, then the trips are the same, to the tenth of a second")
    func tenHertzReceiver() throws {
        var path = Trajectory(interval: 0.1)
        path.stand(300)
        path.reach(15, acceleration: 1.5)
        path.cruise(120)
        path.stop(deceleration: 2)
        path.stand(600)
        path.reach(15, acceleration: 1.5)
        path.cruise(60)
        path.stop(deceleration: 2)
        path.stand(30)
        path.reach(15, acceleration: 1.5)
        path.cruise(60)
        path.stop(deceleration: 2)
        path.stand(300)
        let expected = path.tripSpans()
        try #require(expected.count == 2)
        var fixes = Receiver.perfect.fixes(for: path, seed: 1)
        for index in fixes.indices { fixes[index].device = "/dev/ttyACM0" }
        let run = TripRun(fixes)
        try #require(run.spans.count == 2)
        for (span, want) in zip(run.spans, expected) {
            #expect(abs(span.lowerBound - want.lowerBound) < 1e-6 && abs(span.upperBound - want.upperBound) < 1e-6, "\(span) for \(want)")
        }
        #expect(run.trips.map(\.device) == ["/dev/ttyACM0", "/dev/ttyACM0"])
        #expect(run.trips.allSatisfy { abs($0.maxSpeed - 15) < 1e-9 })
    }

    @Test("Given a drive with two stops, when a trip starts, then its start is earlier than the fix that decided it")
    func startIsEarlierThanTheDecision() {
        let run = TripRun(Receiver.perfect.fixes(for: Self.driveWithTwoStops(), seed: 1))
        // 200 m from the stop takes 10 s speeding up (75 m) and 9 s at 15 m/s.
        #expect(run.startDecidedAt == [319, 1057, 1843])
        #expect(run.started.map { $0.time.seconds(since: Receiver.start) } == [301, 1039, 1825])
    }

    @Test("Given a drive that is still going when the input ends, when finish is called, then the trip ends at its last moving fix")
    func finishClosesAnOpenTrip() {
        var path = Trajectory()
        path.stand(60)
        path.reach(15, acceleration: 1.5)
        path.cruise(100)
        let run = TripRun(Receiver.perfect.fixes(for: path, seed: 1))
        #expect(run.spans == [61...170])
        #expect(run.trips.first.map { abs($0.distance - (74.25 + 1500)) < 1e-6 } == true)
    }

    @Test("Given a fix 3 km away for one second, when it goes through, then no trip starts")
    func aJumpIsNoTrip() {
        var fixes = Receiver.perfect.fixes(for: Drives.parkedHour(), seed: 1)
        fixes[1800] = Receiver.point(seconds: 1800, east: 3000, north: 0, speed: 0)
        #expect(TripRun(fixes).trips.isEmpty)
    }

    /// Two drives of 10 minutes, two hours apart (the fixes of those hours dropped).
    static func twoDrivesApart() -> Trajectory {
        var path = Trajectory()
        path.stand(60)
        path.reach(15, acceleration: 1.5)  // 61...70
        path.cruise(600)  // 71...670
        path.stop(deceleration: 2)  // 671...678
        path.stand(7282)  // 679...7960
        path.reach(15, acceleration: 1.5)  // 7961...7970
        path.cruise(600)
        path.stop(deceleration: 2)  // 8571...8578
        path.stand(60)
        return path
    }

    /// Stand 300 s, walk round a 300 m by 200 m block at 1.4 m/s, stand 300 s.
    static func walkRoundTheBlock() -> Trajectory {
        var path = Trajectory()
        path.stand(300)
        path.reach(1.4, acceleration: 0.7)  // 301, 302: 0.7, 1.4 m/s; 1.05 m
        for leg in [300.0, 200, 300, 200] {
            path.cruise(leg / 1.4)
            path.turn(by: .pi / 2)
        }
        path.stop(deceleration: 0.7)
        path.stand(300)
        return path
    }

    static let blockWalkLength: Double = {
        let path = walkRoundTheBlock()
        // Up to the last fix at 0.7 m/s, the last moving one.
        return path.epochs.last { $0.speed >= 0.5 }!.travelled
    }()
}
