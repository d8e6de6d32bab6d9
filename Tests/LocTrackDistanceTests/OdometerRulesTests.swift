import LocTrack
import LocTrackDistance
import Testing

/// The odometer's rules one at a time: time order, bad input, the moving state's
/// hysteresis, where a motion departed, and replays.
@Suite("Odometer: rules")
struct OdometerRulesTests {
    /// A straight drive at 11 m/s east, one fix a second, from `start` seconds (11, so that
    /// no fix falls on the 20 m of two error circles).
    static func drive(from start: Double, seconds: Int, east: Double = 0) -> [TrackPoint] {
        (0..<seconds).map { Receiver.point(seconds: start + Double($0), east: east + 11 * Double($0), north: 0, speed: 11) }
    }

    @Test("Given a moving odometer, when fixes dated earlier arrive, then they add nothing and it goes on from where it was")
    func timeGoingBackwardsAddsNothing() {
        var odometer = Odometer()
        for fix in Self.drive(from: 0, seconds: 60) { _ = odometer.add(fix) }
        let before = odometer.reading
        // Nine fixes from the past, far away and fast: fewer than a clock step back takes.
        for fix in Self.drive(from: 10, seconds: 9, east: 50_000) { #expect(odometer.add(fix) == before) }
        let next = odometer.add(Receiver.point(seconds: 60, east: 660, north: 0, speed: 11))
        #expect(next.metres == before.metres + 11)
        #expect(next.moving)
    }

    @Test("Given a clock that stepped back for good, when ten fixes in a row are behind, then the odometer starts again from there without adding")
    func clockStepBackRestarts() {
        var odometer = Odometer()
        for fix in Self.drive(from: 1000, seconds: 60) { _ = odometer.add(fix) }
        let before = odometer.reading.metres
        let readings = Self.drive(from: 0, seconds: 30, east: 20_000).map { odometer.add($0) }
        #expect(readings.prefix(14).allSatisfy { $0.metres == before })
        #expect(readings[9].moving == false)
        // After the restart it departs again from where it stood: the first three fixes (0,
        // 11 and 22 m) find that place (11 m), then three fixes over 20 m from it confirm.
        #expect(readings[13].moving == false)
        #expect(readings[14].moving)
        #expect(abs(odometer.reading.metres - before - 20 * 11) < 1e-6)
    }

    @Test("Given gpsd's two reports of one epoch, when both arrive, then the second adds nothing")
    func repeatedTimeAddsNothing() {
        var odometer = Odometer()
        for fix in Self.drive(from: 0, seconds: 30) {
            let first = odometer.add(fix)
            var repeated = fix
            repeated.latitude += 0.001  // 111 m off: it must not count
            #expect(odometer.add(repeated) == first)
        }
        #expect(abs(odometer.reading.metres - 29 * 11) < 1e-6)
    }

    @Test("Given fixes with NaN, infinite or out-of-range values, when they arrive, then they add nothing",
          arguments: [
            TrackPoint(time: Receiver.start, latitude: .nan, longitude: 8.5),
            TrackPoint(time: Receiver.start, latitude: 47.4, longitude: .infinity),
            TrackPoint(time: Receiver.start, latitude: 91, longitude: 8.5),
            TrackPoint(time: Receiver.start, latitude: 47.4, longitude: -181),
          ])
    func nonFiniteInputAddsNothing(_ bad: TrackPoint) {
        var odometer = Odometer(startingAt: 5)
        for fix in Self.drive(from: 0, seconds: 30) {
            let reading = odometer.add(fix)
            var broken = bad
            broken.time = Timestamp(seconds: fix.time.seconds, nanoseconds: 500_000_000)
            #expect(odometer.add(broken) == reading)
        }
        #expect(abs(odometer.reading.metres - 5 - 29 * 11) < 1e-6)
    }

    @Test("Given fixes whose speed or eph is NaN or negative, when they arrive, then they count as having none")
    func unusableSpeedIsNone() {
        var withNaN = Odometer(), withoutSpeed = Odometer()
        for fix in Self.drive(from: 0, seconds: 60) {
            var broken = fix
            broken.speed = -.nan
            broken.horizontalError = -3
            var bare = fix
            bare.speed = nil
            bare.horizontalError = nil
            #expect(withNaN.add(broken) == withoutSpeed.add(bare))
        }
    }

    @Test("Given a drive with stops, when the odometer reads it, then moving switches on once per leg and off at each stop")
    func movingFlipsOncePerLegWithHysteresis() {
        let trajectory = Drives.city(seed: 31)
        let fixes = Drives.typicalReceiver.fixes(for: trajectory, seed: 31)
        var odometer = Odometer()
        var switches: [Bool] = []
        var last = false
        for fix in fixes {
            let moving = odometer.add(fix).moving
            if moving != last { switches.append(moving) }
            last = moving
        }
        // Twelve legs, each a start and an end; stationary when the input ends.
        #expect(switches == Array(repeating: [true, false], count: 12).flatMap { $0 })
    }

    @Test("Given a walk from standstill, when motion is confirmed, then the metres covered meanwhile count and the departure is the first moving fix")
    func confirmationCreditsTheDistanceCovered() {
        var odometer = Odometer(startingAt: 1000)
        var fixes = (0...5).map { Receiver.point(seconds: Double($0), east: 0, north: 0, speed: 0) }
        fixes += (1...20).map { Receiver.point(seconds: 5 + Double($0), east: 1.4 * Double($0), north: 0, speed: 1.4) }
        let readings = fixes.map { odometer.add($0) }
        // Two error circles of 10 m apart: the fixes at 21, 22.4 and 23.8 m (20 to 22 s) confirm it.
        #expect(readings[21].moving == false)
        #expect(readings[22].moving)
        // The departure is the first moving fix, with the odometer there: after the 0.7 m into it.
        #expect(readings[22].departure == TripEndpoint(time: fixes[6].time, latitude: fixes[6].latitude, longitude: fixes[6].longitude,
                                                        odometer: 1000.7))
        // 28 m is no window of the speed check yet: what the speeds covered waits for its verdict.
        #expect(readings.last?.metres == 1000)
        #expect(readings.last?.movingSeconds == 19)
        // At the end the window is judged, short as it is: the speeds agree. The first second
        // counts the trapezoid of 0 and 1.4 m/s: 0.7 m.
        #expect(abs(odometer.finish().metres - 1000 - (0.7 + 19 * 1.4)) < 1e-9)
    }

    @Test("Given a drive that stops, when the stop is confirmed, then what was covered under 0.5 m/s is not counted")
    func slowStepsBeforeAStopDoNotCount() {
        var odometer = Odometer()
        var fixes = Self.drive(from: 0, seconds: 10)
        fixes += (0..<10).map { Receiver.point(seconds: 10 + Double($0), east: 100 + 0.3 * Double($0), north: 0, speed: 0.3) }
        let readings = fixes.map { odometer.add($0) }
        #expect(readings[12].moving == false)
        // The nine steps at 11 m/s count once the stop ends the motion (the speed check's window
        // is judged then); the step from 11 m/s into 0.3 m/s is held with the slow ones, and
        // dropped at the stop.
        #expect(readings[9].metres == 0)
        #expect(abs((readings.last?.metres ?? 0) - 9 * 11) < 1e-9)
    }

    @Test("Given the same fixes twice, when two odometers read them, then they agree to the bit")
    func replayIsDeterministic() {
        let fixes = Receiver(whiteNoise: 3, markovSigma: 15, burstEvery: 200).fixes(for: Drives.city(seed: 41), seed: 41)
        var first = Odometer(), second = Odometer()
        let a = fixes.map { first.add($0) }, b = fixes.map { second.add($0) }
        #expect(a == b)
        #expect(first.reading.metres.bitPattern == second.reading.metres.bitPattern)
    }

    @Test("Given a starting value that is not a number of metres, when an odometer starts from it, then it starts from 0",
          arguments: [-1.0, .nan, .infinity])
    func invalidStartIsZero(_ metres: Double) {
        #expect(Odometer(startingAt: metres).reading == OdometerReading(metres: 0, moving: false))
    }
}
