/// What the spool knows of its messages, apart from the files that hold them: which
/// segments exist and where their records end, the head (the first sequence not
/// acknowledged), acknowledgements that came out of order, what the byte limit drops,
/// and which segment files may go. No descriptors, no clock, no I/O.
///
/// ``SpoolState`` owns one and changes it only after the disk agrees (a record is in the
/// index once its write succeeded, a segment is out of it once its file is deleted), so
/// these rules are tested without a disk.
struct SpoolIndex: Equatable {
    /// The segments on disk, oldest first; their sequences follow without gaps.
    private(set) var segments: [SpoolSegment]
    /// The first sequence not acknowledged, in memory (advanced by ``acknowledge(_:)``).
    private(set) var head: UInt64
    /// The head as the head file holds it, synced: at most `head`. Segment files are
    /// deleted only below it.
    private(set) var durableHead: UInt64
    /// The sequence the next appended message gets.
    private(set) var nextSequence: UInt64
    /// Acknowledged sequences above `head`: those that arrived before an older one.
    private(set) var acknowledged: Set<UInt64> = []

    /// The index of a spool just opened: `segments` as found, `head` as the head file
    /// holds it. Sequences are never reused: the next one follows the last segment, or
    /// the head when every segment is acknowledged and gone.
    init(segments: [SpoolSegment], head: UInt64) {
        self.segments = segments
        self.head = head
        durableHead = head
        nextSequence = max(head, segments.last?.endSequence ?? head)
    }

    // MARK: What is pending

    /// Messages not acknowledged.
    var pendingCount: Int { Int(nextSequence - head) - acknowledged.count }

    /// The bytes of the records from the head to the end: what the limit bounds. Records
    /// acknowledged out of order count until the head passes them, as until then they
    /// stay on disk.
    var pendingBytes: Int64 {
        guard head < nextSequence, let first = segmentIndex(containing: head) else { return 0 }
        var bytes = segments[first].size - segments[first].start(of: Int(head - segments[first].firstSequence))
        for segment in segments[(first + 1)...] { bytes += segment.size }
        return bytes
    }

    /// The index of the segment holding `sequence`, or nil when no segment does.
    func segmentIndex(containing sequence: UInt64) -> Int? {
        var low = 0, high = segments.count
        while low < high {  // the first segment ending after `sequence`
            let middle = (low + high) / 2
            if segments[middle].endSequence <= sequence { low = middle + 1 } else { high = middle }
        }
        guard low < segments.count, segments[low].firstSequence <= sequence else { return nil }
        return low
    }

    /// The record bytes of `sequence`, which a segment holds.
    func recordSize(_ sequence: UInt64) -> Int64 {
        guard let index = segmentIndex(containing: sequence) else { return 0 }
        return segments[index].recordSize(Int(sequence - segments[index].firstSequence))
    }

    /// Whether `sequence`, above the head, was acknowledged out of order.
    func isAcknowledged(_ sequence: UInt64) -> Bool {
        acknowledged.contains(sequence)
    }

    // MARK: Appending

    /// Whether a record of `size` bytes goes to a new segment: there is no open last
    /// segment (`tailOpen`), or it has records and would grow past `segmentBytes`.
    func startsSegment(forRecordOf size: Int64, tailOpen: Bool, segmentBytes: Int64) -> Bool {
        guard tailOpen, let last = segments.last else { return true }
        return last.size > 0 && last.size + size > segmentBytes
    }

    /// A new, empty segment file was created for the next sequence.
    mutating func segmentStarted(_ segment: SpoolSegment) {
        precondition(segment.firstSequence == nextSequence && segment.ends.isEmpty, "a segment out of sequence")
        segments.append(segment)
    }

    /// Records ending at `ends` were written to the last segment.
    mutating func appended(ends: [UInt32]) {
        precondition(!segments.isEmpty, "records appended with no segment")
        segments[segments.count - 1].ends.append(contentsOf: ends)
        nextSequence += UInt64(ends.count)
    }

    // MARK: Acknowledging and dropping

    /// Records an acknowledgement and moves the head over the acknowledged prefix.
    /// Sequences below the head or never appended are ignored: a broker may acknowledge
    /// twice, or a message the limit has dropped meanwhile.
    mutating func acknowledge(_ sequence: UInt64) {
        guard sequence >= head, sequence < nextSequence else { return }
        guard sequence == head else {
            acknowledged.insert(sequence)
            return
        }
        head += 1
        while acknowledged.remove(head) != nil { head += 1 }
    }

    /// Drops the oldest messages while the pending bytes exceed `limitBytes`, but never
    /// the newest: a single message larger than the limit is kept (a limit below one
    /// message would otherwise drop everything and publish nothing).
    /// - Returns: how many dropped messages had not been acknowledged.
    mutating func dropOldest(toFit limitBytes: Int64) -> Int {
        var bytes = pendingBytes
        var dropped = 0
        while bytes > limitBytes, head + 1 < nextSequence {
            bytes -= recordSize(head)
            if acknowledged.remove(head) == nil { dropped += 1 }
            head += 1
            while acknowledged.contains(head) {  // acknowledged: passing it drops nothing
                acknowledged.remove(head)
                bytes -= recordSize(head)
                head += 1
            }
        }
        return dropped
    }

    // MARK: Deleting segment files

    /// The head file now holds `head`, synced.
    mutating func headMadeDurable(_ head: UInt64) {
        precondition(head <= self.head, "a durable head past the head")
        durableHead = head
    }

    /// Whether the oldest segment's records are all acknowledged (in memory) and a
    /// newer segment follows: its file could go once the head is durable.
    var oldestSegmentCanGo: Bool {
        segments.count > 1 && (segments.first.map { $0.endSequence <= head } ?? false)
    }

    /// The oldest segment, when its file may be deleted: all its records are below the
    /// durable head (never above: after a crash they would be needed). The last segment
    /// stays while it is open (`tailOpen`) and has room, so a spool acknowledged as fast
    /// as it fills does not create and delete a file per message.
    func deletableSegment(tailOpen: Bool, segmentBytes: Int64) -> SpoolSegment? {
        guard let oldest = segments.first, oldest.endSequence <= durableHead else { return nil }
        if segments.count == 1, tailOpen, oldest.size < segmentBytes { return nil }
        return oldest
    }

    /// Every segment that ``deletableSegment(tailOpen:segmentBytes:)`` would name, one
    /// deletion after the other, oldest first: those wholly below the durable head, the
    /// last one only when it is closed or full.
    func deletableSegments(tailOpen: Bool, segmentBytes: Int64) -> [SpoolSegment] {
        var count = 0
        while count < segments.count, segments[count].endSequence <= durableHead { count += 1 }
        if count > 0, count == segments.count, tailOpen, segments[count - 1].size < segmentBytes { count -= 1 }
        return Array(segments[..<count])
    }

    /// The oldest segment's file was deleted.
    mutating func oldestSegmentDeleted() {
        segments.removeFirst()
    }
}
