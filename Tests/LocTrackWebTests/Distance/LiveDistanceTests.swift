import Foundation
import LocTrack
import LocTrackDistance
@testable import LocTrackWeb
import Testing

/// `serve`'s distance (``LiveDistance``, ``LocalDay``): today's distance from local midnight,
/// motion and the trip under way, from positions the test makes (no clock, no waiting).
@Suite("Live distance: today and the trip under way", .timeLimit(.minutes(1)))
struct LiveDistanceTests {
    static let utc: @Sendable (Int64) -> Int64 = { _ in 0 }

    /// A position `second` s after ``TestFixes/start`` (08:00 UTC), `east` metres east of 47°N 8°E.
    static func point(_ second: Int64, east: Double, speed: Double, eph: Double = 5) -> TrackPoint {
        TrackPoint(
            time: Timestamp(seconds: TestFixes.start + second), latitude: 47,
            longitude: 8 + east / (111_195 * cos(47 * Double.pi / 180)), speed: speed, horizontalError: eph)
    }

    /// Parked from `from` for `seconds` s at `east`, the fix wandering 2 m either way, Doppler speed 0.1 m/s.
    static func parked(from: Int64, seconds: Int64, at east: Double) -> [TrackPoint] {
        (0..<seconds).map { point(from + $0, east: east + ($0 % 2 == 0 ? 2 : -2), speed: 0.1) }
    }

    /// Driving east at `speed` m/s from `from` for `seconds` s, starting at `east`.
    static func driving(from: Int64, seconds: Int64, at east: Double, speed: Double = 10) -> [TrackPoint] {
        (0..<seconds).map { point(from + $0, east: east + Double($0) * speed, speed: speed) }
    }

    static func json(_ distance: LiveDistance) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(distance.json().utf8)) as? [String: Any])
    }

    @Test("given no position then today is 0, still, no trip, and neither day nor time")
    func beforeTheFirstFix() {
        #expect(LiveDistance().json() == #"{"today":0.0,"moving":false,"trip":null}"#)
    }

    @Test("given a receiver parked for 10 minutes whose fix wanders within its error when taken then today stays 0 and no change is announced")
    func parkedGainsNothing() throws {
        var distance = LiveDistance()
        let changes = Self.parked(from: 0, seconds: 600, at: 0).filter { distance.takeLive($0, utcOffset: Self.utc) }
        #expect(changes.isEmpty)
        #expect(distance.today == 0)
        let json = try Self.json(distance)
        #expect(json["day"] as? String == "2026-11-24")
        #expect(json["moving"] as? Bool == false)
        #expect(json["trip"] is NSNull)
        #expect(json["time"] as? String == TestFixes.time(599))
    }

    @Test("given a minute parked, then 60 s driving at 10 m/s, then a stop when taken then today is the 600 m driven, moving while driving, and the trip starts at the first moving fix")
    func driveMakesATrip() throws {
        var distance = LiveDistance()
        var announced = 0
        for point in Self.parked(from: 0, seconds: 60, at: 0) + Self.driving(from: 60, seconds: 61, at: 0) {
            if distance.takeLive(point, utcOffset: Self.utc) { announced += 1 }
        }
        #expect(abs(distance.today - 600) <= 6, "within 1 % of the 600 m driven: \(distance.today)")
        #expect(distance.reading.moving)
        let trip = try #require(distance.trip)
        #expect(trip.time.seconds >= TestFixes.start + 59 && trip.time.seconds <= TestFixes.start + 61,
                "the trip starts where the motion began, not where 200 m confirmed it: \(trip.time)")
        // About one announcement per metre-changing fix while driving, never one per parked fix;
        // the first 100 m wait for the speed check's first verdict (docs/distance.md), so
        // about ten fewer.
        #expect(announced >= 45 && announced <= 62, "\(announced)")
        let json = try Self.json(distance)
        let tripJSON = try #require(json["trip"] as? [String: Any])
        #expect(tripJSON["start"] as? String == trip.time.iso8601)
        #expect((tripJSON["distance"] as? Double).map { abs($0 - distance.today) <= 11 } == true)
        #expect(tripJSON["duration"] as? Double == Double(TestFixes.start + 120 - trip.time.seconds))
        #expect((tripJSON["startLat"] as? Double) == 47)

        // Stopped: motion ends within a few fixes, the trip 180 s later (Traccar's stop rule).
        let stop = Self.parked(from: 121, seconds: 10, at: 602)
        for point in stop { _ = distance.takeLive(point, utcOffset: Self.utc) }
        #expect(!distance.reading.moving)
        #expect(distance.trip != nil)
        let today = distance.today
        for point in Self.parked(from: 131, seconds: 240, at: 602) { _ = distance.takeLive(point, utcOffset: Self.utc) }
        #expect(distance.trip == nil)
        #expect(distance.today == today, "parked after the drive: nothing added")
    }

    @Test("given a drive across local midnight in UTC+2 when taken then today restarts at 0 with the new local date and counts only what followed")
    func newLocalDay() throws {
        let plusTwo: (Int64) -> Int64 = { _ in 7_200 }
        // 21:59:30 UTC is 23:59:30 local; the drive goes on past 22:00 UTC, local midnight.
        let before = 14 * 3600 - 30  // 08:00 + 13:59:30 = 21:59:30 UTC
        var distance = LiveDistance()
        for point in Self.driving(from: Int64(before), seconds: 30, at: 0) { _ = distance.takeLive(point, utcOffset: plusTwo) }
        #expect(try Self.json(distance)["day"] as? String == "2026-11-24")
        #expect(distance.today > 200)
        let atMidnight = distance.reading.metres
        for point in Self.driving(from: Int64(before) + 30, seconds: 20, at: 300) { _ = distance.takeLive(point, utcOffset: plusTwo) }
        let json = try Self.json(distance)
        #expect(json["day"] as? String == "2026-11-25")
        #expect(distance.day?.start == TestFixes.start + 14 * 3600)
        #expect(abs(distance.today - (distance.reading.metres - atMidnight)) < 1e-9)
        #expect(distance.today >= 190 && distance.today <= 210, "the 20 s after midnight at 10 m/s: \(distance.today)")
        #expect(distance.trip != nil, "a trip goes on across midnight")
    }

    @Test("given recorded positions when live fixes repeat the last of them then those are skipped, and later ones count on")
    func recordedThenLive() {
        var distance = LiveDistance()
        let drive = Self.driving(from: 0, seconds: 40, at: 0)
        for point in drive[..<30] { distance.takeRecorded(point, utcOffset: Self.utc) }
        let recorded = distance.reading.metres
        #expect(recorded > 250)
        #expect(!drive[25..<30].contains { distance.takeLive($0, utcOffset: Self.utc) })
        #expect(distance.reading.metres == recorded)
        #expect(drive[30...].allSatisfy { distance.takeLive($0, utcOffset: Self.utc) })
        #expect(abs(distance.reading.metres - recorded - 100) <= 1)
    }

    @Test("given zones and a change of the clocks when the local day is asked for then it starts at local midnight and lasts 23 h on the day the clocks go forward")
    func localDays() {
        // UTC+2 at 23:30 UTC is the next local day, which began at 22:00 UTC.
        let late = LocalDay(containing: TestFixes.start + 15 * 3600 + 1800, utcOffset: { _ in 7_200 })
        #expect(late.date == "2026-11-25")
        #expect(late.start == TestFixes.start + 14 * 3600)
        #expect(late.end - late.start == 86_400)
        // UTC-5 at 03:00 UTC is still the previous local day.
        let early = LocalDay(containing: TestFixes.start - 5 * 3600, utcOffset: { _ in -18_000 })
        #expect(early.date == "2026-11-23")
        #expect(early.contains(TestFixes.start - 5 * 3600))
        // Clocks forward from +1 to +2 at 01:00 UTC: that local day has 23 hours.
        let change = TestFixes.start - 7 * 3600  // 2026-11-24T01:00:00Z
        let spring = LocalDay(containing: change + 3600, utcOffset: { $0 < change ? 3_600 : 7_200 })
        #expect(spring.date == "2026-11-24")
        #expect(spring.start == TestFixes.start - 9 * 3600)  // 23:00 UTC the day before: local midnight at +1
        #expect(spring.end - spring.start == 23 * 3600)
    }
}
