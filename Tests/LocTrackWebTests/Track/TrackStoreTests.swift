import LocTrack
@testable import LocTrackWeb
import Testing

@Suite("Track store: a ring of compact points")
struct TrackStoreTests {
    static func point(_ second: Int64) -> PackedTrackPoint {
        PackedTrackPoint(time: second * 1000, latitude: 47, longitude: 8)
    }

    @Test("a point is 40 bytes: no references, no optionals")
    func compact() {
        #expect(MemoryLayout<PackedTrackPoint>.stride == 40)
    }

    @Test("given a capacity of 3 when 5 points are added then the latest 3 are kept, oldest first")
    func ring() {
        var store = TrackStore(capacity: 3)
        for second in 1...5 { store.append(Self.point(Int64(second))) }
        #expect(store.count == 3)
        #expect(store.points(since: nil).map(\.time) == [3000, 4000, 5000])
        #expect(store.last?.time == 5000)
    }

    @Test("given a wrapped ring when asked since a time then the points at or after it come, whichever part of the storage they are in", arguments: [
        (nil, [4, 5, 6, 7]), (Int64(4000), [4, 5, 6, 7]), (Int64(5500), [6, 7]), (Int64(7000), [7]), (Int64(8000), []),
    ])
    func since(time: Int64?, seconds: [Int64]) {
        var store = TrackStore(capacity: 4)
        for second in 1...7 { store.append(Self.point(Int64(second))) }
        #expect(store.points(since: time).map { $0.time / 1000 } == seconds)
    }

    @Test("given recorded points up to 3 s when live points at 2, 3 and 4 s come then only 4 is added")
    func recordedDeduplicated() {
        var store = TrackStore(capacity: 10, recorded: [1, 2, 3].map(Self.point))
        for second in 2...4 { store.append(Self.point(Int64(second))) }
        #expect(store.points(since: nil).map { $0.time / 1000 } == [1, 2, 3, 4])
    }

    @Test("given more recorded points than the capacity then the latest are kept")
    func recordedOverCapacity() {
        let store = TrackStore(capacity: 2, recorded: [1, 2, 3].map(Self.point))
        #expect(store.points(since: nil).map { $0.time / 1000 } == [2, 3])
    }

    @Test("given a fix's values when stored then they come back: time in ms, unknown values nil")
    func values() {
        let point = PackedTrackPoint(TestFixes.fix(second: 1, eph: nil))
        #expect(point.time == (TestFixes.start + 1) * 1000)
        #expect(point.horizontalError == nil)
        #expect(point.altitudeHAE == 500)
        #expect(point.altitudeMSL == 452.5)
        #expect(point.isThreeD && !point.isDGPS && !point.startsSegment)
        #expect(point.timestamp.iso8601 == TestFixes.time(1))
        #expect(PackedTrackPoint(time: -1500, latitude: 0, longitude: 0).timestamp.iso8601 == "1969-12-31T23:59:58.500Z")
    }
}
