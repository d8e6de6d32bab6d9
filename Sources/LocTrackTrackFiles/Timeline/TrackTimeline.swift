import LocTrack
package import LocTrackDistance

/// The points of every file, merged into one track in time order.
///
/// Files may come in any order and overlap (a GPX and a JSON file of the same drive, two
/// days' files that share the midnight hour): the points are sorted by time, stably (for
/// equal times, the file given first and the point first in it come first), and one point
/// is kept per time: the one that says the most (a speed, an error estimate, a device), else
/// the first.
///
/// The points are held in 56 bytes each (a `TrackPoint` takes 112 and its device string's
/// storage): a month at 1 Hz, 2.6 million points, is about 150 MB. They keep what the trips
/// use: the merged points have no altitudes and no fix kind (the page's track, which shows
/// those, does not go through a timeline).
package struct TrackTimeline: Sendable {
    fileprivate struct Entry: Sendable {
        var time: Timestamp
        var latitude: Double
        var longitude: Double
        /// NaN: unknown.
        var speed: Double
        /// NaN: unknown.
        var horizontalError: Double
        /// 0: none; else 1 + its index in `devices`.
        var device: UInt32
        /// The order of adding, which breaks ties of time.
        var sequence: UInt32

        /// How much the point says beyond its position, to pick among points of one time.
        var detail: Int {
            (speed.isNaN ? 0 : 2) + (horizontalError.isNaN ? 0 : 1) + (device == 0 ? 0 : 1)
        }
    }

    private var entries: [Entry] = []
    private var devices: [String] = []
    private var deviceNumbers: [String: UInt32] = [:]

    package init() {}

    /// Adds the points of one file, in its order, after those added before.
    package mutating func add(_ points: [TrackPoint]) {
        entries.reserveCapacity(entries.count + points.count)
        for point in points {
            entries.append(Entry(
                time: point.time, latitude: point.latitude, longitude: point.longitude, speed: point.speed ?? .nan,
                horizontalError: point.horizontalError ?? .nan, device: number(of: point.device),
                sequence: UInt32(truncatingIfNeeded: entries.count)))
        }
    }

    /// The merged track: in time order, one point per time, made as it is read (not held
    /// twice). The timeline is used up.
    package consuming func merged() -> MergedTrack {
        var ordered = entries
        entries = []
        if !zip(ordered, ordered.dropFirst()).allSatisfy({ $0.time < $1.time }) {
            ordered.sort { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
        }
        return MergedTrack(entries: ordered, devices: devices)
    }

    /// The points of a ``TrackTimeline`` in time order, one per time.
    package struct MergedTrack: Sequence, Sendable {
        fileprivate let entries: [Entry]
        fileprivate let devices: [String]

        package func makeIterator() -> Iterator {
            Iterator(track: self)
        }

        package struct Iterator: IteratorProtocol {
            fileprivate let track: MergedTrack
            fileprivate var index = 0

            package mutating func next() -> TrackPoint? {
                let entries = track.entries
                guard index < entries.endIndex else { return nil }
                var best = entries[index]
                index += 1
                while index < entries.endIndex, entries[index].time == best.time {
                    if entries[index].detail > best.detail { best = entries[index] }
                    index += 1
                }
                return track.point(best)
            }
        }

        fileprivate func point(_ entry: Entry) -> TrackPoint {
            TrackPoint(
                time: entry.time, latitude: entry.latitude, longitude: entry.longitude,
                speed: entry.speed.isNaN ? nil : entry.speed,
                horizontalError: entry.horizontalError.isNaN ? nil : entry.horizontalError,
                device: entry.device == 0 ? nil : devices[Int(entry.device) - 1])
        }
    }

    private mutating func number(of device: String?) -> UInt32 {
        guard let device else { return 0 }
        if let known = deviceNumbers[device] { return known }
        devices.append(device)
        let number = UInt32(devices.count)
        deviceNumbers[device] = number
        return number
    }
}
