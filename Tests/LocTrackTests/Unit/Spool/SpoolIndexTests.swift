@testable import LocTrackMQTT
@testable import LocTrackSpool
import Testing

/// ``SpoolIndex`` without a disk: segments made of record sizes, acknowledgements, the
/// limit, and which files may go.
@Suite("Spool index: pending, acknowledgements, the limit, deletions", .timeLimit(.minutes(1)))
struct SpoolIndexTests {
    /// A segment starting at `first` whose records take `sizes` bytes each.
    func segment(_ first: UInt64, sizes: [Int]) -> SpoolSegment {
        var segment = SpoolSegment(firstSequence: first, directory: "/spool")
        var end: UInt32 = 0
        for size in sizes {
            end += UInt32(size)
            segment.ends.append(end)
        }
        return segment
    }

    @Test("given two segments and a head when indexed then the next sequence follows the last segment and everything from the head is pending")
    func pendingFromHead() {
        let index = SpoolIndex(segments: [segment(0, sizes: [10, 10, 10]), segment(3, sizes: [20, 20])], head: 1)
        #expect(index.nextSequence == 5)
        #expect(index.pendingCount == 4)
        #expect(index.pendingBytes == 60)
        #expect(index.segmentIndex(containing: 2) == 0)
        #expect(index.segmentIndex(containing: 3) == 1)
        #expect(index.segmentIndex(containing: 5) == nil)
        #expect(index.recordSize(4) == 20)
        #expect(index.segments[1].path == "/spool/00000000000000000003.seg")
    }

    @Test("given no segments left when indexed then sequences continue from the head, never reused")
    func emptySpoolContinuesFromHead() {
        var index = SpoolIndex(segments: [], head: 42)
        #expect(index.nextSequence == 42)
        #expect(index.pendingCount == 0)
        #expect(index.pendingBytes == 0)
        #expect(index.startsSegment(forRecordOf: 10, tailOpen: false, segmentBytes: 100))
        index.segmentStarted(segment(42, sizes: []))
        index.appended(ends: [10, 25])
        #expect(index.nextSequence == 44)
        #expect(index.pendingBytes == 25)
    }

    @Test("given acknowledgements out of order when the gap is filled then the head moves over all of them")
    func outOfOrderAcknowledgements() {
        var index = SpoolIndex(segments: [segment(0, sizes: [10, 10, 10, 10, 10])], head: 0)
        index.acknowledge(2)
        index.acknowledge(3)
        #expect(index.head == 0)
        #expect(index.pendingCount == 3)
        #expect(index.isAcknowledged(2))
        #expect(index.pendingBytes == 50)  // acknowledged records stay on disk until the head passes them
        index.acknowledge(0)
        #expect(index.head == 1)
        index.acknowledge(1)
        #expect(index.head == 4)
        #expect(index.acknowledged.isEmpty)
        index.acknowledge(0)  // twice
        index.acknowledge(9)  // never appended
        #expect(index.head == 4)
        #expect(index.pendingCount == 1)
    }

    @Test("given pending bytes over the limit when dropping then the oldest go and only unacknowledged ones count")
    func dropOldestToFit() {
        var index = SpoolIndex(segments: [segment(0, sizes: [10, 10]), segment(2, sizes: [10, 10, 10])], head: 0)
        index.acknowledge(1)
        // 50 bytes, limit 25: 0 goes (dropped), 1 passes (acknowledged), 2 goes (dropped): 20 left.
        #expect(index.dropOldest(toFit: 25) == 2)
        #expect(index.head == 3)
        #expect(index.pendingBytes == 20)
        #expect(index.acknowledged.isEmpty)
        #expect(index.dropOldest(toFit: 25) == 0)
    }

    @Test("given a limit below one message when dropping then the newest message is kept")
    func newestKept() {
        var index = SpoolIndex(segments: [segment(0, sizes: [10, 10, 30])], head: 0)
        #expect(index.dropOldest(toFit: 5) == 2)
        #expect(index.head == 2)
        #expect(index.pendingCount == 1)
        #expect(index.pendingBytes == 30)
    }

    @Test("given acknowledged segments when asking what may be deleted then only those below the durable head, the open last one only when full")
    func deletableSegments() {
        var index = SpoolIndex(segments: [segment(0, sizes: [10, 10, 10]), segment(3, sizes: [10, 10])], head: 0)
        for sequence in UInt64(0)..<5 { index.acknowledge(sequence) }
        #expect(index.head == 5)
        #expect(index.oldestSegmentCanGo)
        #expect(index.deletableSegment(tailOpen: true, segmentBytes: 100) == nil)  // the head is not durable yet
        index.headMadeDurable(3)
        #expect(index.deletableSegment(tailOpen: true, segmentBytes: 100)?.firstSequence == 0)
        index.oldestSegmentDeleted()
        #expect(index.segments.map(\.firstSequence) == [3])
        #expect(!index.oldestSegmentCanGo)
        #expect(index.deletableSegment(tailOpen: true, segmentBytes: 100) == nil)  // 3 and 4 above the durable head
        index.headMadeDurable(5)
        #expect(index.deletableSegment(tailOpen: true, segmentBytes: 100) == nil)  // the open tail with room stays
        #expect(index.deletableSegment(tailOpen: true, segmentBytes: 20)?.firstSequence == 3)  // full
        #expect(index.deletableSegment(tailOpen: false, segmentBytes: 100)?.firstSequence == 3)  // closed
        index.oldestSegmentDeleted()
        #expect(index.segments.isEmpty)
        #expect(index.nextSequence == 5)
    }

    @Test("given an open last segment when records are sized against the segment size then a new segment starts only past it")
    func segmentStarts() {
        let index = SpoolIndex(segments: [segment(0, sizes: [60])], head: 0)
        #expect(!index.startsSegment(forRecordOf: 40, tailOpen: true, segmentBytes: 100))
        #expect(index.startsSegment(forRecordOf: 41, tailOpen: true, segmentBytes: 100))
        #expect(index.startsSegment(forRecordOf: 1, tailOpen: false, segmentBytes: 100))
        // An empty segment takes any record, however large.
        let empty = SpoolIndex(segments: [segment(0, sizes: [])], head: 0)
        #expect(!empty.startsSegment(forRecordOf: 500, tailOpen: true, segmentBytes: 100))
    }
}
