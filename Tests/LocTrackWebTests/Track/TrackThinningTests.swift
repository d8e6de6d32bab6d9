@testable import LocTrackWeb
import Testing

@Suite("Track thinning: largest triangle, three buckets")
struct TrackThinningTests {
    /// Points along longitude, one a second, with the latitudes given.
    static func points(_ latitudes: [Double]) -> [PackedTrackPoint] {
        latitudes.enumerated().map { PackedTrackPoint(time: Int64($0.offset) * 1000, latitude: $0.element, longitude: Double($0.offset) * 1e-3) }
    }

    @Test("given at most max points then all are kept")
    func fewKeptWhole() {
        #expect(TrackThinning.largestTriangleThreeBuckets(Self.points([0, 0, 0]), maximum: 3) == [0, 1, 2])
        #expect(TrackThinning.largestTriangleThreeBuckets([], maximum: 3) == [])
    }

    @Test("given more points than max then exactly max are kept, ascending, with the first and the last", arguments: [3, 4, 7, 50, 99])
    func exactCount(maximum: Int) {
        let points = Self.points((0..<100).map { sin(Double($0) / 5) * 1e-3 })
        let kept = TrackThinning.largestTriangleThreeBuckets(points, maximum: maximum)
        #expect(kept.count == maximum)
        #expect(kept.first == 0)
        #expect(kept.last == 99)
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("given max 1 or 2 then the newest point, or the first and the newest")
    func tinyMaximum() {
        let points = Self.points([0, 1, 2, 3])
        #expect(TrackThinning.largestTriangleThreeBuckets(points, maximum: 1) == [3])
        #expect(TrackThinning.largestTriangleThreeBuckets(points, maximum: 2) == [0, 3])
    }

    @Test("given a straight track with one detour when thinned to 3 then the detour's far point is the one kept")
    func keepsTheCorner() {
        var latitudes = Array(repeating: 0.0, count: 11)
        latitudes[6] = 0.01
        latitudes[5] = 0.005
        latitudes[7] = 0.005
        #expect(TrackThinning.largestTriangleThreeBuckets(Self.points(latitudes), maximum: 3) == [0, 6, 10])
    }

    @Test("given a day at 1 Hz when thinned to 5,000 then 5,000 points come back")
    func day() {
        let points = (0..<86_400).map { PackedTrackPoint(time: Int64($0) * 1000, latitude: 47 + Double($0 % 977) * 1e-6, longitude: 8 + Double($0) * 1e-6) }
        let kept = TrackThinning.largestTriangleThreeBuckets(points, maximum: 5_000)
        #expect(kept.count == 5_000)
        #expect(Set(kept).count == 5_000)
    }
}

private func sin(_ x: Double) -> Double {
    // Taylor series is enough for a test curve; no libc in the tests' maths.
    var term = x
    var sum = x
    for n in 1..<12 {
        term *= -x * x / Double((2 * n) * (2 * n + 1))
        sum += term
    }
    return sum
}
