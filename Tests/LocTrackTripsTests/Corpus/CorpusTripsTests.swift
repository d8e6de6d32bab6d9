import LocTrack
import LocTrackDistance
import LocTrackTrackFiles
import Testing

/// `loctrack trips` on real recordings: each file's trips and distance, table-driven, beside
/// the points' own chords (docs/distance.md has the table with gpxpy's figures beside it).
@Suite("Real recordings: trips and distance", .timeLimit(.minutes(1)))
struct CorpusTripsTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let file: String
        let trips: Int
        /// The odometer over the whole file (trips or not), metres: what loctrack measures.
        let metres: Double
        /// Why the distance is more than 5 % from the chords, when it is.
        var apart: String?
        /// Whether its speeds disagree with its positions (another unit), said once.
        var speedsDisagree = false
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        // Dense (1-2 s) and moving: within a few per cent of the chords.
        Case(file: "etrex20x-car.gpx", trips: 1, metres: 2_680),
        Case(file: "garmin-edge800.gpx", trips: 1, metres: 25_087),
        Case(file: "garmin-oregon700.gpx", trips: 2, metres: 21_743),
        Case(file: "wahoo-elemnt-bolt.gpx", trips: 1, metres: 4_686),
        Case(file: "igc-flight.kml", trips: 1, metres: 62_709),
        Case(file: "holux-m241.gpx", trips: 3, metres: 9_690,
             apart: "1 Hz chords carry the fix's jitter and spikes of 21 m/s while driving; the speeds integrate to 9,748 m"),
        Case(file: "lezyne-super-gps.gpx", trips: 4, metres: 7_666,
             apart: "1 Hz chords carry the fix's jitter (a spike of 57 m/s); the speeds integrate to 7,638 m"),
        Case(file: "garmin-mobile-xt.gpx", trips: 4, metres: 11_646,
             apart: "the first track repeats the start of the second, 164 points, and the chords go back over it"),
        // Sparse (3-11 s): every step counts.
        Case(file: "garmin-connect.gpx", trips: 1, metres: 1_574),
        Case(file: "garmin-fr10.gpx", trips: 1, metres: 10_334),
        Case(file: "garmin-edge305.tcx", trips: 1, metres: 56_743),
        Case(file: "garmin-fr110.tcx", trips: 2, metres: 10_848),
        Case(file: "garmin-fr210-run.tcx", trips: 1, metres: 10_106),
        Case(file: "globalsat-gh625xt.gpx", trips: 1, metres: 2_377),
        Case(file: "iblue747.gpx", trips: 2, metres: 67_388),
        Case(file: "mapfinity.kml", trips: 2, metres: 7_621),
        Case(file: "korita-zbevnica.gpx", trips: 6, metres: 5_936,
             apart: "a hike without speeds, 29 pauses of 1 to 34 min: its slowest steps, under 0.5 m/s and within two error circles, count as stops"),
        Case(file: "cerknicko-jezero.gpx", trips: 4, metres: 13_113),
        Case(file: "mtk-logger.gpx", trips: 5, metres: 6_004,
             apart: "the first fixes are 2 km off (a cold start), and the speeds integrate to 0.85 × the 5 s chords of a walk"),
        // Speeds in another unit, or no journey to measure.
        Case(file: "skytraq.gpx", trips: 2, metres: 2_346,
             apart: "two sessions 963 days and 8,728 km apart; the speeds are 0.49 × what the positions show, so chords count",
             speedsDisagree: true),
        Case(file: "google-takeout.gpx", trips: 12, metres: 4_598_552,
             apart: "location history: points minutes to hours apart, flights between continents"),
        Case(file: "mojstrovka-1901.gpx", trips: 0, metres: 0, apart: "every point has the same time (1901-12-13): no motion in no time"),
        Case(file: "opentracks.kml", trips: 0, metres: 0, apart: "two points 3 h and 10 m apart: standing"),
    ]

    @Test("given a real recording when its trips are found then they are the expected ones, near the chords unless a reason says why", arguments: cases)
    func recording(_ expected: Case) throws {
        let points = try Corpus.points(expected.file)
        var trips: [TripSummary] = []
        let track = TripFinder.trips(in: points) { trips.append($0) }
        let chords = Corpus.chords(points)
        let tripChords = trips.reduce(0) { $0 + Corpus.chords(Corpus.between(points, $1.start.time, $1.end.time)) }
        print("distance-figure: corpus \(expected.file): \(trips.count) trips \(Int(trips.metres.rounded())) m (chords in them \(Int(tripChords.rounded())) m); in all \(Int(track.metres.rounded())) m, chords \(Int(chords.rounded())) m, ratio \((track.metres / max(chords, 1) * 1000).rounded() / 1000); speeds \(track.speedDisagreement.map { "disagree \($0)" } ?? "agree")")
        #expect(trips.count == expected.trips)
        #expect((track.speedDisagreement != nil) == expected.speedsDisagree)
        #expect(abs(track.metres - expected.metres) <= 0.005 * expected.metres + 1, "in all \(track.metres) m")
        if expected.apart == nil {
            #expect(abs(track.metres - chords) <= 0.05 * chords, "\(track.metres) m for \(chords) m of chords")
        }
        for trip in trips {
            #expect(trip.averageSpeed <= trip.maxSpeed)
            let chordsOfTrip = Corpus.chords(Corpus.between(points, trip.start.time, trip.end.time))
            #expect(trip.distance <= 1.1 * chordsOfTrip + 1, "\(trip.distance) m for \(chordsOfTrip) m of chords")
        }
    }
}
