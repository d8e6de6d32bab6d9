import LocTrack
import LocTrackDistance
import LocTrackTrackFiles
import Testing

/// Real 1 Hz rides and drives thinned to one fix every 5 to 60 s, as phone apps, Traccar's
/// client, OwnTracks and loggers on battery settings write them: the trips still measure the
/// journey (at least 0.90 × the thinned points' chords) and never more than the 1 Hz ride
/// (at most 1.05 × its trips), with the receiver's speeds and without.
@Suite("Real recordings thinned", .timeLimit(.minutes(1)))
struct ThinningTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let file: String
        let withSpeeds: Bool
        var testDescription: String { "\(file), \(withSpeeds ? "with" : "without") speeds" }
    }

    static let intervals: [Double] = [5, 6, 10, 15, 30, 60]
    static let rides = ["wahoo-elemnt-bolt.gpx", "lezyne-super-gps.gpx", "holux-m241.gpx", "etrex20x-car.gpx"]
    static let cases = rides.flatMap { [Case(file: $0, withSpeeds: true), Case(file: $0, withSpeeds: false)] }

    @Test("given a real 1 Hz ride thinned to a fix every 5 to 60 s when its trips are found then they measure at least 0.90 × the thinned chords and at most 1.05 × the ride",
          arguments: cases)
    func thinned(_ ride: Case) throws {
        var points = try Corpus.points(ride.file)
        if !ride.withSpeeds {
            for index in points.indices { points[index].speed = nil }
        }
        let full = TripFinder.trips(in: points).metres
        var figures: [String] = []
        for interval in Self.intervals {
            let kept = Corpus.thinned(points, every: interval)
            let trips = TripFinder.trips(in: kept)
            let chords = Corpus.chords(kept)
            figures.append("\(Int(interval)) s: \(Int(trips.metres.rounded())) m of \(Int(chords.rounded())) m chords")
            #expect(!trips.isEmpty, "a fix every \(interval) s")
            #expect(trips.metres >= 0.90 * chords, "a fix every \(interval) s: \(trips.metres) m for \(chords) m of chords")
            #expect(trips.metres <= 1.05 * full, "a fix every \(interval) s: \(trips.metres) m for \(full) m at 1 Hz")
        }
        print("distance-figure: thinned \(ride.testDescription): 1 Hz \(Int(full.rounded())) m; " + figures.joined(separator: "; "))
    }
}
