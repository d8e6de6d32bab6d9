import Foundation
import LocTrack
import LocTrackTestSupport
import Testing

/// `loctrack trips` as a user runs it on what other programs export: the built `loctrack`
/// becomes the built `loctrack-trips`, which reads the real recordings of Fixtures/corpus
/// (a Garmin TCX, a phone app's KML `gx:Track`, a GPX with untimed points, a GPX whose speeds
/// are in another unit) and says what it must on stderr.
@Suite("loctrack trips on other programs' files, end to end", .timeLimit(.minutes(1)))
struct OtherProgramsEndToEndTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let file: String
        let trips: Int
        /// The trips' distances summed, metres (CorpusTripsTests pins the same).
        let metres: Double
        /// What stderr says, each line without `loctrack: FILE: `.
        let said: [String]
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "garmin-edge305.tcx", trips: 1, metres: 56_727, said: []),
        Case(file: "mapfinity.kml", trips: 2, metres: 7_621, said: []),
        Case(file: "korita-zbevnica.gpx", trips: 6, metres: 5_671, said: ["358 track points without a time skipped"]),
        Case(file: "skytraq.gpx", trips: 2, metres: 2_334, said: [
            "the speeds disagree with the positions (0.49 × the distance the positions cover: another unit?); distances come from the positions",
        ]),
    ]

    @Test("given a real recording another program wrote when loctrack trips reads it then the trips are its own and stderr says what it must, exit 0",
          arguments: cases)
    func otherProgramsFile(_ expected: Case) async throws {
        let path = Corpus.folder.appendingPathComponent(expected.file).path
        let result = try await LoctrackProcess.run(["trips", "--format", "json", path])
        #expect(result.status == .exited(0), "\(result)")
        let trips = try result.jsonObjects()
        #expect(trips.count == expected.trips, "\(result)")
        let metres = trips.reduce(0.0) { $0 + ($1["distance"] as? Double ?? 0) }
        #expect(abs(metres - expected.metres) <= 0.005 * expected.metres + 1, "\(metres) m")
        #expect(trips.allSatisfy { ($0["averageSpeed"] as? Double ?? 0) <= ($0["maxSpeed"] as? Double ?? 0) })
        #expect(result.stderr.completeLines == expected.said.map { "loctrack: \(path): \($0)" }, "\(result)")
    }
}
