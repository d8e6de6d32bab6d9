import LocTrack
import LocTrackDistance
import LocTrackFormats
import LocTrackTrackFiles
import Testing

/// The trips of the generated day, read back from each recorded format: the same two trips,
/// whatever the file. (The rules themselves are LocTrackDistance's, tested there; this checks
/// that what the readers give the engines is a track they find the trips in.)
@Suite("Trips in recorded files", .timeLimit(.minutes(1)))
struct TripFinderTests {
    static let drive = GeneratedDrive()

    static func trips(_ format: OutputFormat) -> [TripSummary] {
        var timeline = TrackTimeline()
        timeline.add(TrackFileReader.read(Recorded.bytes(drive.fixes, format)).points)
        return TripFinder.trips(in: timeline.merged())
    }

    /// Checks the two trips: each starts and ends within a few seconds of when the driving
    /// did, and its distance is within 1 % of the 6 km driven (the target).
    static func expectTheTwoDrives(_ trips: [TripSummary], speedKnown: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(trips.count == 2, "\(trips)", sourceLocation: sourceLocation)
        for (trip, drive) in zip(trips, GeneratedDrive.drives) {
            let start = trip.start.time.seconds(since: GeneratedDrive.start)
            let end = trip.end.time.seconds(since: GeneratedDrive.start)
            #expect(abs(start - Double(drive.start)) <= 10, "start \(start) s, driving from \(drive.start) s", sourceLocation: sourceLocation)
            #expect(abs(end - Double(drive.end)) <= 10, "end \(end) s, driving until \(drive.end) s", sourceLocation: sourceLocation)
            #expect(abs(trip.distance - GeneratedDrive.tripLength) <= GeneratedDrive.tripLength / 100,
                    "\(trip.distance) m of \(GeneratedDrive.tripLength)", sourceLocation: sourceLocation)
            #expect(trip.maxSpeed == (speedKnown ? GeneratedDrive.speed : 0), sourceLocation: sourceLocation)
        }
    }

    @Test("given the day recorded as JSON lines, CSV, GeoJSON when its trips are found then they are the two drives, with the receiver's speed",
          arguments: [OutputFormat.json, .csv, .geojson])
    func withSpeed(format: OutputFormat) {
        let trips = Self.trips(format)
        Self.expectTheTwoDrives(trips, speedKnown: true)
        #expect(trips.allSatisfy { $0.device == "/dev/ttyACM0" })
    }

    @Test("given the day recorded as GPX (no speed: the odometer takes chords) when its trips are found then they are the two drives")
    func gpxWithoutSpeed() {
        let trips = Self.trips(.gpx)
        Self.expectTheTwoDrives(trips, speedKnown: false)
        #expect(trips.allSatisfy { $0.device == nil })
    }

    @Test("given a parked day only (the fix wandering) when its trips are found then there are none")
    func parkedDay() {
        let parked = Self.drive.points.prefix(GeneratedDrive.parkedSeconds)
        #expect(TripFinder.trips(in: parked).isEmpty)
    }

    @Test("given a track that ends while driving when its trips are found then the open trip ends at its last point")
    func endsWhileDriving() throws {
        let untilMidDrive = Self.drive.points.prefix(GeneratedDrive.parkedSeconds + 200)
        let trips = TripFinder.trips(in: untilMidDrive)
        let trip = try #require(trips.first)
        #expect(trips.count == 1)
        #expect(abs(trip.end.time.seconds(since: untilMidDrive.last!.time)) <= 1)
    }
}
