import Testing
@testable import LocTrack
@testable import LocTrackMonitor

@Suite("Region geometry", .timeLimit(.minutes(1)))
struct RegionGeometryTests {
    typealias F = GeofenceFixtures

    @Test("Given a circle of 100 m, when asked about points on a line through it, then the signed distance is the distance to the rim")
    func circleSignedDistance() {
        let geometry = RegionGeometry(F.circle(radius: 100))
        #expect(abs(geometry.signedDistance(from: F.point(north: 0, east: 0)) + 100) < 0.01)
        #expect(abs(geometry.signedDistance(from: F.point(north: 60, east: 0)) + 40) < 0.05)
        #expect(abs(geometry.signedDistance(from: F.point(north: 0, east: 250)) - 150) < 0.1)
        #expect(geometry.size == 100)
    }

    @Test("Given a 200 m square with a 100 m hole, when asked, then the hole is outside and distances are to the nearest edge")
    func polygonWithHole() {
        let square = [(-100.0, -100.0), (-100, 100), (100, 100), (100, -100)]
        let hole = [(-50.0, -50.0), (-50, 50), (50, 50), (50, -50)]
        let geometry = RegionGeometry(F.polygon(square, holes: [hole]))
        #expect(abs(geometry.signedDistance(from: F.point(north: 0, east: 0)) - 50) < 0.05)  // in the hole
        #expect(abs(geometry.signedDistance(from: F.point(north: 75, east: 0)) + 25) < 0.05)  // in the ring
        #expect(abs(geometry.signedDistance(from: F.point(north: 0, east: 130)) - 30) < 0.05)  // east of it
        // Size: the radius of a circle of the same area, 200² − 100² = 30,000 m².
        #expect(abs(geometry.size - (30_000 / Double.pi).squareRoot()) < 0.5)
    }

    @Test("Given a concave U-shaped polygon, when a point is in the notch, then it is outside")
    func concavePolygon() {
        // A U opening north: 300 m wide, 300 m tall, the notch 100 m wide and 200 m deep.
        let u = [(0.0, 0.0), (300, 0), (300, 100), (100, 100), (100, 200), (300, 200), (300, 300), (0, 300)]
        let geometry = RegionGeometry(F.polygon(u))
        #expect(geometry.signedDistance(from: F.point(north: 200, east: 150)) > 49)  // the notch
        #expect(geometry.signedDistance(from: F.point(north: 200, east: 50)) < -49)  // the left arm
        #expect(geometry.signedDistance(from: F.point(north: 50, east: 150)) < -49)  // the base
    }

    @Test("Given a box grown by 1 km, when compared, then it contains points 990 m away and not 1,010 m away")
    func boundingBoxExpansion() {
        let box = BoundingBox(around: F.origin, radius: 1000)
        #expect(box.contains(F.point(north: 990, east: 0)))
        #expect(box.contains(F.point(north: 0, east: -990)))
        #expect(!box.contains(F.point(north: 1010, east: 0)))
        #expect(!box.contains(F.point(north: 0, east: 1010)))
    }

    @Test("Given 1,000 circles on a grid, when asked for candidates, then each point's own circle is among them and far ones are not")
    func spatialGridCandidates() {
        var reaches: [BoundingBox] = []
        for row in 0..<40 {
            for column in 0..<25 {
                let geometry = RegionGeometry(F.circle(radius: 50, north: Double(row) * 500, east: Double(column) * 500))
                reaches.append(geometry.boundingBox.expanded(by: 60))
            }
        }
        let grid = SpatialGrid(reaches: reaches)
        let candidates = grid.candidates(near: F.point(north: 10 * 500, east: 7 * 500))
        #expect(candidates.contains(Int32(10 * 25 + 7)))
        #expect(candidates.count < 20)
        #expect(!candidates.contains(0))
        #expect(grid.everywhere.isEmpty)
    }
}
