import Foundation
import LocTrackTrackFiles
import Testing

/// The real recordings of `Fixtures/corpus/` (SOURCES.md says whose): every file is read
/// whole, with the points FIGURES.md counts (its timed points: less those without a position
/// and, in mtk-logger.gpx, the 14 track points with `<fix>none</fix>`), and the notes said exactly.
@Suite("Real recordings", .timeLimit(.minutes(1)))
struct CorpusReadingTests {
    @Test("given a real recording when read then it is whole, with the points its figures count and the notes it needs", arguments: [
        ("cerknicko-jezero.gpx", 296, []),
        ("etrex20x-car.gpx", 104, []),
        ("garmin-connect.gpx", 68, []),
        ("garmin-edge305.tcx", 1_202, []),
        ("garmin-edge800.gpx", 1_286, []),
        ("garmin-fr10.gpx", 514, []),
        ("garmin-fr110.tcx", 928, ["x: 6 points share their time with another point; one point per time kept"]),
        ("garmin-fr210-run.tcx", 545, []),
        // 164 shared times, every one the same place: nothing lost, no note.
        ("garmin-mobile-xt.gpx", 958, []),
        ("garmin-oregon700.gpx", 997, []),
        ("globalsat-gh625xt.gpx", 174, []),
        ("google-takeout.gpx", 216, [
            "x: 562 track points without a time skipped",
            "x: 4 points share their time with another point; one point per time kept",
        ]),
        ("holux-m241.gpx", 1_199, ["x: 114 points share their time with another point; one point per time kept"]),
        ("iblue747.gpx", 747, []),
        ("igc-flight.kml", 1_448, []),
        ("korita-zbevnica.gpx", 513, ["x: 358 track points without a time skipped"]),
        ("lezyne-super-gps.gpx", 804, ["x: 4 points share their time with another point; one point per time kept"]),
        ("mapfinity.kml", 451, []),
        ("mojstrovka-1901.gpx", 184, ["x: 183 points share their time with another point; one point per time kept"]),
        ("mtk-logger.gpx", 803, []),
        ("opentracks.kml", 2, []),
        ("skytraq.gpx", 271, []),
        ("wahoo-elemnt-bolt.gpx", 1_101, []),
    ] as [(String, Int, [String])])
    func recording(file: String, points: Int, notes: [String]) throws {
        let bytes = try Corpus.bytes(file)
        let reading = TrackFileReader.read(bytes)
        #expect(reading.isWhole)
        #expect(reading.problem(named: "x") == nil)
        #expect(reading.points.count == points)
        #expect(reading.notes(named: "x") == notes)
    }
}
