import LocTrack
import LocTrackDistance
import LocTrackTestSupport
import Testing

/// What real loggers write besides a clean 1 Hz stream, generated with fixed seeds: speeds in
/// another unit, a single glitch, an auto-pause, sparse fixes; and the figures a person reads
/// (an average above the maximum, a trip longer than its chords) checked as properties.
@Suite("Odometer and trips: what loggers write")
struct LoggerQuirksTests {
    static func scaled(_ fixes: [TrackPoint], by factor: Double) -> [TrackPoint] {
        fixes.map { fix in
            var scaled = fix
            scaled.speed = fix.speed.map { $0 * factor }
            return scaled
        }
    }

    @Test("Given a ride whose speeds are in another unit, when the odometer reads it, then the chords count (at 1 Hz, some per cent long), and it says so",
          arguments: [
            ("cm/s", 100.0), ("km/h", 3.6), ("mph", 2.237), ("knots", 1.944), ("m/s read as km/h", 1 / 3.6), ("half", 0.5),
          ])
    func speedsInAnotherUnit(unit: String, factor: Double) {
        let path = Drives.ride(seed: 51)
        let fixes = Self.scaled(Drives.typicalReceiver.fixes(for: path, seed: 51), by: factor)
        var odometer = Odometer()
        for fix in fixes { _ = odometer.add(fix) }
        let metres = odometer.finish().metres
        let chords = NaiveSum.metres(fixes)
        print("distance-figure: quirks, speeds in \(unit): \(Figure.metres(metres)) m of \(Figure.metres(path.length)) m (chords \(Figure.metres(chords)) m), said \(odometer.speedDisagreement ?? 0)")
        // 1 Hz chords of a receiver with metres of noise are some per cent long: what the
        // receiver's speeds were for. Never the speeds in another unit, never over 1.1 × the chords.
        #expect(abs(metres - path.length) <= 0.12 * path.length)
        #expect(metres <= 1.1 * chords)
        let said = odometer.speedDisagreement
        // The factor said is the windows' (a window of cm/s is judged before 100 m: roughly).
        #expect(said.map { $0 / factor > 0.6 && $0 / factor < 1.6 } == true, "the ratio said: \(String(describing: said))")
        let trips = TripRun(fixes).trips
        #expect(!trips.isEmpty)
        #expect(trips.allSatisfy { $0.maxSpeed < 12 }, "a maximum from the speeds in \(unit): \(trips.map(\.maxSpeed))")
    }

    @Test("Given a ride whose speeds are right, when the odometer reads it, then it integrates them and says nothing",
          arguments: [UInt64(52), 53, 54])
    func rightSpeedsAreTrusted(seed: UInt64) {
        let path = Drives.ride(seed: seed)
        var odometer = Odometer()
        for fix in Drives.typicalReceiver.fixes(for: path, seed: seed) { _ = odometer.add(fix) }
        let metres = odometer.finish().metres
        #expect(odometer.speedDisagreement == nil)
        #expect(abs(metres - path.length) <= 0.01 * path.length)
    }

    @Test("Given a walk with one fix whose speed is 92 m/s, when it is measured, then neither the distance nor the maximum notices")
    func singleSpeedGlitch() throws {
        let path = Drives.walk(seed: 55)
        var fixes = Drives.typicalReceiver.fixes(for: path, seed: 55)
        let clean = TripRun(fixes)
        let moving = try #require(fixes.indices.first { fixes[$0].speed ?? 0 > 1.2 && $0 > 200 })
        fixes[moving].speed = 92
        let glitched = TripRun(fixes)
        try #require(glitched.trips.count == clean.trips.count)
        for (trip, reference) in zip(glitched.trips, clean.trips) {
            #expect(abs(trip.distance - reference.distance) < 1)
            #expect(trip.maxSpeed < 3, "a walk's maximum: \(trip.maxSpeed) m/s")
        }
    }

    @Test("Given a walk without speeds with one fix 184 m off for 2 s, when its trips are found, then the jump is no top speed")
    func singlePositionJumpIsNoMaximum() throws {
        var path = Trajectory(interval: 2)
        path.stand(60)
        path.reach(2.7, acceleration: 0.5)  // a brisk walk, 9.7 km/h
        path.cruise(1200, turn: 0.002)
        path.stop(deceleration: 0.5)
        path.stand(300)
        let receiver = Receiver(whiteNoise: 1, markovSigma: 2, reportsSpeed: false)
        var fixes = receiver.fixes(for: path, seed: 56)
        let jumped = fixes.count / 2, epoch = path.epochs[jumped]
        fixes[jumped] = Receiver.point(seconds: epoch.seconds, east: epoch.east + 184, north: epoch.north, speed: nil, eph: nil)
        let trips = TripRun(fixes).trips
        let trip = try #require(trips.first)
        #expect(trips.count == 1)
        #expect(trip.maxSpeed < 4, "\(trip.maxSpeed) m/s")
        #expect(trip.averageSpeed <= trip.maxSpeed)
        // The chords out to the jump and back (368 m) count: without speeds nothing says that
        // a plausible step was none (docs/distance.md, limits).
        #expect(trip.distance < 1.05 * path.length + 2 * 184)
    }

    @Test("Given a bike computer that stops logging while the rider stands (26 and 33 min, ends 5 m apart), when its trips are found, then the pauses are stops")
    func autoPauseGapsAreStops() throws {
        var path = Trajectory()
        path.stand(30)
        path.reach(6, acceleration: 1)
        path.cruise(500)
        path.stop(deceleration: 1.5)
        let firstEnd = path.last.seconds
        path.stand(26 * 60)
        path.reach(6, acceleration: 1)
        path.cruise(400)
        path.stop(deceleration: 1.5)
        let secondEnd = path.last.seconds
        path.stand(33 * 60)
        path.reach(6, acceleration: 1)
        path.cruise(600)
        path.stop(deceleration: 1.5)
        path.stand(10)
        // The logger writes nothing while standing: from 5 s after each stop until the rider goes on.
        var fixes = Receiver.perfect.fixes(for: path, seed: 57)
        fixes.removeAll { point in
            let second = point.time.seconds(since: Receiver.start)
            return (firstEnd + 5..<firstEnd + 26 * 60).contains(second) || (secondEnd + 5..<secondEnd + 33 * 60).contains(second)
        }
        let run = TripRun(fixes)
        print("distance-figure: quirks, auto-pause: \(run.trips.map { "\(Figure.metres($0.distance)) m in \($0.duration) s, moving \($0.movingTime) s" })")
        try #require(run.trips.count == 3)
        let moving = run.trips.reduce(0) { $0 + $1.movingTime }
        // About 25 minutes of riding, not 1 h 24 min.
        #expect(moving < 1_560 && moving > 1_500, "\(moving) s moving")
        #expect(run.trips.allSatisfy { $0.duration < 620 && $0.averageSpeed > 5.5 && $0.averageSpeed <= $0.maxSpeed })
        #expect(abs(run.trips.reduce(0) { $0 + $1.distance } - path.length) < 0.01 * path.length)
    }

    @Test("Given generated rides, walks and drives at 1 to 60 s, with and without speeds, when their trips are found, then no average exceeds its maximum and no trip is longer than 1.1 × its chords",
          arguments: [UInt64(61), 62, 63, 64])
    func figuresAPersonCanBelieve(seed: UInt64) {
        let tracks: [Trajectory] = [Drives.ride(seed: seed), Drives.walk(seed: seed), Drives.city(seed: seed)]
        for (index, path) in tracks.enumerated() {
            for every in [1, 2, 5, 10, 30, 60] {
                for speeds in [true, false] {
                    let receiver = Receiver(whiteNoise: 1.5, markovSigma: 3, markovSeconds: 60, burstEvery: 600, reportsSpeed: speeds)
                    let fixes = receiver.fixes(for: path, seed: seed &+ UInt64(every)).enumerated()
                        .filter { $0.offset % every == 0 }.map(\.element)
                    for trip in TripRun(fixes).trips {
                        let inTrip = fixes.filter { $0.time >= trip.start.time && $0.time <= trip.end.time }
                        let chords = NaiveSum.metres(inTrip)
                        #expect(trip.averageSpeed <= trip.maxSpeed, "track \(index), every \(every) s, speeds \(speeds)")
                        #expect(trip.distance <= 1.1 * chords + 1, "track \(index), every \(every) s, speeds \(speeds): \(trip.distance) m, chords \(chords) m")
                        #expect(trip.movingTime <= trip.duration)
                    }
                }
            }
        }
    }
}
