import LocTrack

/// Which conditions can be near a point: a uniform latitude/longitude grid.
///
/// Each condition is filed under every cell its *reach* overlaps: its bounding box grown
/// by its hysteresis margin plus its size. A fix outside a condition's reach whose error
/// circle is no larger than the condition (otherwise it decides nothing) lies outside by
/// more than error + margin, so it can only confirm `unsatisfied`. The engine therefore
/// evaluates only the conditions filed under the fix's cell, plus those whose state is
/// not `unsatisfied`. The cell size follows the median reach; a condition that would fill
/// more than ``maximumCellsPerCondition`` cells is kept in a short list checked every time.
package struct SpatialGrid: Sendable {
    package static let maximumCellsPerCondition = 256

    private let cellDegrees: Double
    private var cells: [Int64: [Int32]] = [:]
    /// Conditions too large to file cell by cell: candidates for every point.
    private(set) var everywhere: [Int32] = []

    /// - Parameter reaches: each condition's reach, by slot.
    package init(reaches: [BoundingBox]) {
        let extents = reaches.map { max($0.maxLatitude - $0.minLatitude, $0.maxLongitude - $0.minLongitude) }.sorted()
        let median = extents.isEmpty ? 0.01 : extents[extents.count / 2]
        cellDegrees = min(max(median, 0.0005), 10)
        for (slot, reach) in reaches.enumerated() {
            let rows = cell(reach.minLatitude)...cell(reach.maxLatitude)
            let columns = cell(reach.minLongitude)...cell(reach.maxLongitude)
            guard rows.count * columns.count <= Self.maximumCellsPerCondition else {
                everywhere.append(Int32(slot))
                continue
            }
            for row in rows {
                for column in columns { cells[key(row, column), default: []].append(Int32(slot)) }
            }
        }
    }

    /// The slots whose reach may contain `point`, in slot order within each list.
    package func candidates(near point: GeoPoint) -> [Int32] {
        cells[key(cell(point.latitude), cell(point.longitude))] ?? []
    }

    private func cell(_ degrees: Double) -> Int64 { Int64((degrees / cellDegrees).rounded(.down)) }
    private func key(_ row: Int64, _ column: Int64) -> Int64 { row &* 1_000_003 &+ column }
}
