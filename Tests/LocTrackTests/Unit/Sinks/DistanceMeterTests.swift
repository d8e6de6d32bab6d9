import Foundation
import LocTrack
import LocTrackDistance
@testable import LocTrackSinks
import Testing

/// What a streaming command hands its sinks when it measures distance: each event's
/// odometer, the trips between them, and the odometer kept on disk by its own thread.
@Suite("Distance in the sinks' batches", .timeLimit(.minutes(1)))
struct DistanceMeterTests {
    /// A drive north along a meridian at `speed` m/s, one fix a second, eph 3 m.
    static func drive(seconds: ClosedRange<Int64>, speed: Double, from north: Double = 0) -> [Fix] {
        seconds.map { second in
            let metres = north + speed * Double(second - seconds.lowerBound)
            return Fix(
                time: Timestamp(seconds: 1_773_572_400 + second), mode: .threeD, latitude: 47 + metres / 111_195,
                longitude: 8, horizontalError: 3, speed: speed)
        }
    }

    @Test("given a parked minute then a 10 m/s drive when built then the odometer counts only the drive, and a trip starts at its first moving fix")
    func readingsAndTrips() {
        let parked = (0...59).map { second in
            Fix(time: Timestamp(seconds: 1_773_572_400 + second), mode: .threeD, latitude: 47, longitude: 8,
                horizontalError: 3, speed: 0)
        }
        let fixes = parked + Self.drive(seconds: 60...119, speed: 10)
        var builder = GPSDBatchBuilder(meter: DistanceMeter(startingAt: 500, detectsTrips: true, keeper: nil))
        for fix in fixes { builder.append(.fix(fix)) }
        let batch = builder.take()
        #expect(batch.events.count == 120 && batch.odometer.count == 120)
        #expect(batch.odometer[59] == OdometerReading(metres: 500, moving: false))
        let last = batch.odometer[119]
        #expect(last.moving)
        #expect(abs(last.metres - 500 - 590) < 6, "59 s at 10 m/s after the parked minute: \(last.metres - 500) m")
        #expect(batch.trips.count == 1)
        guard case .started(let start, _)? = batch.trips.first?.event else {
            Issue.record("no trip started")
            return
        }
        #expect(start.time.seconds - 1_773_572_400 <= 61, "the trip starts at its first moving fix, not when it was decided")
        #expect(batch.trips[0].afterEvent > 61, "decided once the fix was 200 m away")
        #expect(builder.take().events.isEmpty, "the builder starts afresh")
    }

    @Test("given fixes a filter left out when measured then they count for the odometer but are not in the batch")
    func filteredFixesCount() {
        var builder = GPSDBatchBuilder(meter: DistanceMeter(startingAt: 0, detectsTrips: false, keeper: nil))
        let fixes = Self.drive(seconds: 0...60, speed: 10)
        for (index, fix) in fixes.enumerated() {
            if index % 10 == 0 { builder.append(.fix(fix)) } else { builder.measure(fix) }
        }
        let batch = builder.take()
        #expect(batch.events.count == 7)
        #expect(abs(batch.odometer[6].metres - 600) < 6, "\(batch.odometer[6].metres)")
    }

    @Test("given no meter when built then the batch has events only, as before")
    func noMeter() {
        var builder = GPSDBatchBuilder(meter: nil)
        builder.append(.status(.fixLost(device: nil)))
        let batch = builder.take()
        #expect(batch.events.count == 1 && batch.odometer.isEmpty && batch.trips.isEmpty)
    }

    @Test("given a keeper when a drive is measured and the keeper finishes then the file holds the last reading, and a new keeper starts from it")
    func keeperWritesTheLastReading() throws {
        let folder = try TrackFiles.temporaryFolder("odometer")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/odometer"
        let keeper = try OdometerKeeper(path: path)
        #expect(keeper.startingMetres == 0)
        var meter = DistanceMeter(startingAt: keeper.startingMetres, detectsTrips: false, keeper: keeper)
        var last = OdometerReading(metres: 0, moving: false)
        for fix in Self.drive(seconds: 0...30, speed: 20) { last = meter.measure(fix).reading }
        keeper.finish()
        #expect(last.metres > 500)
        let reopened = try OdometerKeeper(path: path)
        defer { reopened.finish() }
        #expect(reopened.startingMetres == last.metres)
    }

    @Test("given a short drive the speed check has not judged yet when the command ends then finish keeps its metres")
    func finishKeepsWhatWaited() throws {
        let folder = try TrackFiles.temporaryFolder("odometer-finish")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/odometer"
        let keeper = try OdometerKeeper(path: path)
        var meter = DistanceMeter(startingAt: 0, detectsTrips: false, keeper: keeper)
        // 9 s at 8 m/s: some 60 m of confirmed motion, short of the speed check's 100 m window.
        let fixes = (0...20).map { second in
            Fix(time: Timestamp(seconds: 1_773_572_400 + second), mode: .threeD, latitude: 47, longitude: 8, horizontalError: 3,
                speed: 0)
        } + Self.drive(seconds: 21...30, speed: 8)
        var last = OdometerReading(metres: 0, moving: false)
        for fix in fixes { last = meter.measure(fix).reading }
        #expect(last.moving && last.metres == 0, "the metres wait for the first verdict: \(last)")
        meter.finish()
        keeper.finish()
        let reopened = try OdometerKeeper(path: path)
        defer { reopened.finish() }
        // What the odometer counts of these fixes once the input ends, some 70 m.
        var reference = Odometer()
        for fix in fixes { _ = reference.add(TrackPoint(fix)) }
        let counted = reference.finish().metres
        #expect(counted > 60)
        #expect(reopened.startingMetres == counted, "\(reopened.startingMetres) m kept, \(counted) m counted")
    }

    @Test("given a parked receiver when measured then the keeper writes no file")
    func parkedWritesNothing() throws {
        let folder = try TrackFiles.temporaryFolder("odometer-parked")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/odometer"
        let keeper = try OdometerKeeper(path: path)
        var meter = DistanceMeter(startingAt: 0, detectsTrips: false, keeper: keeper)
        for second in Int64(0)...30 {
            _ = meter.measure(Fix(time: Timestamp(seconds: 1_773_572_400 + second), mode: .threeD, latitude: 47,
                                  longitude: 8, horizontalError: 3, speed: 0))
        }
        keeper.finish()
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
