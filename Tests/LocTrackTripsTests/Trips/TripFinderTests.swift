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

    /// How close a trip found must be to the drive: with the receiver's speed, within a few
    /// seconds and 1 % (the target); with chords only (GPX), the generated parked
    /// fixes' white noise of 2.5 m a second makes the first and last steps of each stop look
    /// like motion for a while, a limit docs/distance.md states ("Fixes without a speed").
    struct Tolerance {
        var startSeconds: Double
        var endSeconds: Double
        var distanceFraction: Double

        static let withSpeed = Tolerance(startSeconds: 10, endSeconds: 10, distanceFraction: 0.01)
        static let chordsOnly = Tolerance(startSeconds: 10, endSeconds: 60, distanceFraction: 0.05)
    }

    /// Checks the two trips: each starts and ends near when the driving did, its distance
    /// near the 6 km driven, its maximum speed the receiver's 15 m/s (chords: at least that).
    static func expectTheTwoDrives(_ trips: [TripSummary], _ tolerance: Tolerance, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(trips.count == 2, "\(trips)", sourceLocation: sourceLocation)
        for (trip, drive) in zip(trips, GeneratedDrive.drives) {
            let start = trip.start.time.seconds(since: GeneratedDrive.start)
            let end = trip.end.time.seconds(since: GeneratedDrive.start)
            #expect(abs(start - Double(drive.start)) <= tolerance.startSeconds, "start \(start) s, driving from \(drive.start) s",
                    sourceLocation: sourceLocation)
            #expect(abs(end - Double(drive.end)) <= tolerance.endSeconds, "end \(end) s, driving until \(drive.end) s",
                    sourceLocation: sourceLocation)
            #expect(abs(trip.distance - GeneratedDrive.tripLength) <= GeneratedDrive.tripLength * tolerance.distanceFraction,
                    "\(trip.distance) m of \(GeneratedDrive.tripLength)", sourceLocation: sourceLocation)
            if tolerance.distanceFraction == Tolerance.withSpeed.distanceFraction {
                #expect(trip.maxSpeed == GeneratedDrive.speed, sourceLocation: sourceLocation)
            } else {
                // The slower of the chords into and out of each fix: a plane's metres measured on a sphere.
                #expect(trip.maxSpeed >= GeneratedDrive.speed - 0.001, sourceLocation: sourceLocation)
            }
        }
    }

    @Test("given the day recorded as JSON lines, CSV, GeoJSON when its trips are found then they are the two drives, with the receiver's speed",
          arguments: [OutputFormat.json, .csv, .geojson])
    func withSpeed(format: OutputFormat) {
        let trips = Self.trips(format)
        Self.expectTheTwoDrives(trips, .withSpeed)
        #expect(trips.allSatisfy { $0.device == "/dev/ttyACM0" })
    }

    @Test("given the day recorded as GPX (no speed: the odometer takes chords) when its trips are found then they are the two drives, within the chords' limit")
    func gpxWithoutSpeed() {
        let trips = Self.trips(.gpx)
        Self.expectTheTwoDrives(trips, .chordsOnly)
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
