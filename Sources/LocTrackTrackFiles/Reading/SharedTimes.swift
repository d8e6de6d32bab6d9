import LocTrack
import LocTrackDistance

extension TrackFileReading {
    /// How many of the file's points share their time with a point elsewhere: a logger that
    /// wrote many fixes with one timestamp. The timeline keeps one point per time, so the
    /// others are lost, which ``notes(named:)`` says. A point repeated whole (the same time
    /// and place, as TCX repeats the last Trackpoint of a lap as the next lap's first) loses
    /// nothing and is not counted; nor are other files' points: files that overlap are
    /// normal, and the same drive's points in them are the same.
    var pointsSharingTime: Int {
        // Most files are in time order, one point per time: one pass says so.
        guard zip(points, points.dropFirst()).contains(where: { $0.time >= $1.time }) else { return 0 }
        let order = points.indices.sorted { points[$0].time < points[$1].time }
        var count = 0
        var start = 0
        while start < order.count {
            let first = points[order[start]]
            var end = start + 1
            while end < order.count, points[order[end]].time == first.time { end += 1 }
            let elsewhere = order[start..<end].contains { points[$0].latitude != first.latitude || points[$0].longitude != first.longitude }
            if elsewhere { count += end - start }
            start = end
        }
        return count
    }
}
