import LocTrackSystem

/// Fewer points for the page that keep the track's shape: largest-triangle-three-buckets
/// (Steinarsson, "Downsampling Time Series for Visual Representation", 2013), on the map's
/// plane instead of a time axis.
///
/// The first and the last point are kept; the rest are cut into `maximum - 2` buckets of
/// consecutive points, and from each the point that makes the largest triangle with the
/// point kept before it and the mean of the next bucket: the corners, the far ends of
/// detours. One pass, O(n), and exactly `maximum` points (when there are more).
enum TrackThinning {
    /// The indices of the points to keep, ascending: all of them when there are at most
    /// `maximum`; else exactly `maximum` (at least 1: the newest point; 2: the first and last).
    static func largestTriangleThreeBuckets(_ points: [PackedTrackPoint], maximum: Int) -> [Int] {
        let count = points.count
        guard count > maximum else { return Array(points.indices) }
        guard maximum > 1 else { return maximum == 1 ? [count - 1] : [] }
        guard maximum > 2 else { return [0, count - 1] }
        // Local plane: degrees of longitude shrink with the cosine of the latitude.
        let xScale = cos(points[0].latitude * Double.pi / 180)
        let buckets = maximum - 2
        // Bucket b holds the points bound(b)..<bound(b + 1); the last "bucket" is the last point.
        func bound(_ bucket: Int) -> Int {
            bucket >= buckets ? count - 1 + (bucket - buckets) : 1 + bucket * (count - 2) / buckets
        }
        var kept: [Int] = []
        kept.reserveCapacity(maximum)
        kept.append(0)
        var previous = 0
        for bucket in 0..<buckets {
            let next = bound(bucket + 1)..<bound(bucket + 2)
            var meanX = 0.0
            var meanY = 0.0
            for index in next {
                meanX += points[index].longitude * xScale
                meanY += points[index].latitude
            }
            meanX /= Double(next.count)
            meanY /= Double(next.count)
            let ax = points[previous].longitude * xScale
            let ay = points[previous].latitude
            var best = bound(bucket)
            var largest = -1.0
            for index in bound(bucket)..<bound(bucket + 1) {
                // Twice the triangle's area; the factor does not change which is largest.
                let area = abs((ax - meanX) * (points[index].latitude - ay)
                    - (ax - points[index].longitude * xScale) * (meanY - ay))
                if area > largest {
                    largest = area
                    best = index
                }
            }
            kept.append(best)
            previous = best
        }
        kept.append(count - 1)
        return kept
    }
}
