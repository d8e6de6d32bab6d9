import Foundation
import LocTrack
import LocTrackDistance
import LocTrackTestSupport
import LocTrackTrackFiles

/// The real recordings of `Fixtures/corpus/` (SOURCES.md: where each is from, its device and
/// licence), and what the tests measure them with.
enum Corpus {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/corpus")

    static func bytes(_ file: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))
    }

    /// The file's points as `loctrack trips` takes them: read, merged in time order, one per time.
    static func points(_ file: String) throws -> [TrackPoint] {
        var timeline = TrackTimeline()
        timeline.add(TrackFileReader.read(try bytes(file)).points)
        return Array(timeline.merged())
    }

    /// The chords between consecutive points, left out where faster than 100 m/s (a clock
    /// that jumped, a cold start's first fix) or at no time at all: what the points
    /// themselves say, the reference a person checks a distance against.
    static func chords(_ points: some Collection<TrackPoint>) -> Double {
        zip(points, points.dropFirst()).reduce(0) { sum, pair in
            let metres = haversine(pair.0, pair.1)
            let seconds = pair.1.time.seconds(since: pair.0.time)
            return seconds > 0 && metres <= 100 * seconds ? sum + metres : sum
        }
    }

    /// The points from `start` to `end`, both included.
    static func between(_ points: [TrackPoint], _ start: Timestamp, _ end: Timestamp) -> ArraySlice<TrackPoint> {
        let first = points.firstIndex { $0.time >= start } ?? points.endIndex
        let last = points.lastIndex { $0.time <= end } ?? -1
        return first <= last ? points[first...last] : []
    }

    /// One point in `every` seconds at most: the first, then each at least that long after the
    /// one kept before it (a logger set to write less often).
    static func thinned(_ points: [TrackPoint], every seconds: Double) -> [TrackPoint] {
        var kept: [TrackPoint] = []
        for point in points where kept.last.map({ point.time.seconds(since: $0.time) >= seconds }) ?? true {
            kept.append(point)
        }
        return kept
    }

    static func haversine(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        Haversine.metres(a.latitude, a.longitude, b.latitude, b.longitude)
    }
}

extension Collection where Element == TripSummary {
    var metres: Double { reduce(0) { $0 + $1.distance } }
}
