import LocTrack
import LocTrackDistance
import Testing

/// Walking and driving: the odometer within 1 % of the driven length; gaps and jumps.
@Suite("Odometer: walking and driving")
struct OdometerDriveTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let trajectory: @Sendable () -> Trajectory
        let receiver: Receiver
        let seed: UInt64
        /// Only every so many fixes are kept (a logger that writes one fix in five).
        var keepEvery = 1
        var testDescription: String { "\(name), seed \(seed)" }
    }

    static let cases: [Case] = [UInt64(11), 12, 13].flatMap { seed in
        [
            Case(name: "walking with turns and stops", trajectory: { Drives.walk(seed: seed) }, receiver: Drives.typicalReceiver,
                 seed: seed),
            Case(name: "city stop-and-go", trajectory: { Drives.city(seed: seed) }, receiver: Drives.typicalReceiver, seed: seed),
            Case(name: "highway at 30 m/s", trajectory: { Drives.highway(seed: seed) }, receiver: Drives.typicalReceiver, seed: seed),
            Case(name: "city stop-and-go, no speed in the fixes (chords)", trajectory: { Drives.city(seed: seed) },
                 receiver: Receiver(whiteNoise: 0.3, markovSigma: 2, markovSeconds: 120, reportsSpeed: false), seed: seed),
            Case(name: "walking, a fix every 5 s with no speed (chords)", trajectory: { Drives.walk(seed: seed) },
                 receiver: Receiver(whiteNoise: 0.3, markovSigma: 2, markovSeconds: 120, reportsSpeed: false), seed: seed,
                 keepEvery: 5),
        ]
    }

    @Test("Given a generated walk or drive, when the odometer reads it, then it is within 1 % of the driven length",
          arguments: cases)
    func withinOnePercentOfTheDrivenLength(_ scenario: Case) {
        let trajectory = scenario.trajectory()
        let fixes = scenario.receiver.fixes(for: trajectory, seed: scenario.seed)
        let kept = fixes.enumerated().filter { $0.offset % scenario.keepEvery == 0 }.map(\.element)
        let measured = Measured(kept, truth: trajectory.length)
        print("distance-figure: drive, \(scenario.testDescription): \(measured), error \(Figure.metres(measured.relativeError * 100)) %")
        #expect(measured.relativeError <= 0.01)
    }

    @Test("Given a walk logged every second with no speed, when the odometer adds its chords, then the receiver's noise makes it some per cent long")
    func chordsOfANoisyWalkAtOneHertzOverstate() {
        // Each 1.4 m chord carries the fixes' noise: what speeds are for. A limit, documented in docs/distance.md.
        let trajectory = Drives.walk(seed: 11)
        let receiver = Receiver(whiteNoise: 0.3, markovSigma: 2, markovSeconds: 120, reportsSpeed: false)
        let measured = Measured(receiver.fixes(for: trajectory, seed: 11), truth: trajectory.length)
        print("distance-figure: drive, walking, a fix every second with no speed (chords), seed 11: \(measured), error \(Figure.metres(measured.relativeError * 100)) %")
        #expect(measured.odometer > trajectory.length)
        #expect(measured.relativeError <= 0.10)
    }

    @Test("Given a drive through a 60 s tunnel with no fix, when the odometer reads it, then the tunnel's chord counts")
    func tunnelChordCounts() {
        var path = Trajectory()
        path.stand(30)
        path.reach(20, acceleration: 2)
        path.cruise(300)
        path.stop(deceleration: 2)
        path.stand(30)
        let fixes = Drives.typicalReceiver.fixes(for: path, seed: 21, dropping: 101...160)
        let measured = Measured(fixes, truth: path.length)
        print("distance-figure: drive, 60 s tunnel: \(measured)")
        #expect(measured.relativeError <= 0.01)
        // Without the chord the tunnel's 1,200 m would be missing.
        #expect(measured.odometer > path.length - 100)
    }

    @Test("Given a drive with one fix 3 km off for one second, when the odometer reads it, then the jump adds nothing")
    func jumpAddsNothing() {
        var path = Trajectory()
        path.stand(30)
        path.reach(15, acceleration: 1.5)
        path.cruise(300)
        path.stop(deceleration: 2)
        path.stand(30)
        var fixes = Drives.typicalReceiver.fixes(for: path, seed: 22)
        let jumped = fixes[200], epoch = path.epochs[200]
        fixes[200] = Receiver.point(seconds: epoch.seconds, east: epoch.east + 3000, north: epoch.north, speed: jumped.speed)
        var chordsOnly = fixes.map { TrackPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) }
        let measured = Measured(fixes, truth: path.length)
        print("distance-figure: drive, a 3 km jump in 1 s: \(measured)")
        #expect(measured.naive > path.length + 5_900)
        #expect(measured.relativeError <= 0.01)
        // Without speeds the jump's chords (3 km in a second, twice) add nothing either.
        chordsOnly[0] = fixes[0]
        let chords = Measured(chordsOnly, truth: path.length)
        #expect(chords.odometer < path.length * 1.02)
    }

    @Test("Given a stationary receiver found 5 km away after an hour with no fix, when it drives on, then the chord counts once it moves")
    func gapChordCountsOnceMoving() {
        var fixes = [Receiver.point(seconds: 0, east: 0, north: 0, speed: 0), Receiver.point(seconds: 1, east: 0, north: 0, speed: 0)]
        for second in 0..<20 {
            fixes.append(Receiver.point(seconds: 3600 + Double(second), east: 5000 + 10 * Double(second), north: 0, speed: 10))
        }
        var odometer = Odometer()
        let readings = fixes.map { odometer.add($0) }
        #expect(readings[2].metres == 0)
        #expect(readings.last?.moving == true)
        // The points are laid out on a flat plane, measured on a sphere: a few in a million apart.
        #expect(abs(odometer.reading.metres - (5000 + 190)) < 0.01)
    }

    @Test("Given a parked receiver found 30 m away after a 10 s gap and still parked, when it goes on, then nothing counts")
    func gapWhileParkedAddsNothing() {
        var odometer = Odometer()
        _ = odometer.add(Receiver.point(seconds: 0, east: 0, north: 0, speed: 0.1))
        _ = odometer.add(Receiver.point(seconds: 1, east: 0, north: 0, speed: 0.1))
        for second in 11..<40 { _ = odometer.add(Receiver.point(seconds: Double(second), east: 30, north: 0, speed: 0.1)) }
        #expect(odometer.reading == OdometerReading(metres: 0, moving: false))
    }
}
