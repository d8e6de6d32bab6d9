extension SpoolState {
    /// Where the next up to `limit` unacknowledged messages from `sequence` on are (see
    /// ``Spool/messages(from:limit:)``): in ``recent`` when they were just appended (the
    /// plan then holds them), otherwise on disk, one read per segment touched, of just
    /// the records from the first wanted to the last (those acknowledged out of order in
    /// between are read and skipped).
    func planRead(from sequence: UInt64, limit: Int) -> SpoolReadPlan {
        var next = max(sequence, index.head)
        // What was just appended is still in memory (it runs up to nextSequence).
        if next >= recentFirst, next < recentFirst + UInt64(recent.count) {
            var result: [(sequence: UInt64, message: SpoolMessage)] = []
            var position = Int(next - recentFirst)
            while result.count < limit, position < recent.count {
                let recordSequence = recentFirst + UInt64(position)
                if !index.isAcknowledged(recordSequence) { result.append((recordSequence, recent[position])) }
                position += 1
            }
            return .recent(result)
        }
        var reads: [SpoolRead] = []
        var remaining = limit
        while remaining > 0, let position = index.segmentIndex(containing: next) {
            let segment = index.segments[position]
            let first = Int(next - segment.firstSequence)
            var end = first
            var wanted: [UInt64] = []
            while end < segment.count, remaining > 0 {
                let recordSequence = segment.firstSequence + UInt64(end)
                end += 1
                if !index.isAcknowledged(recordSequence) {
                    wanted.append(recordSequence)
                    remaining -= 1
                }
            }
            if let firstWanted = wanted.first, let lastWanted = wanted.last {
                let records = Int(firstWanted - segment.firstSequence)..<(Int(lastWanted - segment.firstSequence) + 1)
                reads.append(SpoolRead(
                    path: segment.path, file: tail.flatMap { $0.path == segment.path ? $0 : nil },
                    segmentEnd: segment.endSequence, firstSequence: firstWanted,
                    start: segment.start(of: records.lowerBound), ends: Array(segment.ends[records]), wanted: wanted))
            }
            next = segment.firstSequence + UInt64(end)
        }
        return .disk(reads)
    }
}

/// Where ``SpoolState/planRead(from:limit:)`` found the messages asked for.
enum SpoolReadPlan {
    /// In memory: these are the messages.
    case recent([(sequence: UInt64, message: SpoolMessage)])
    /// On disk: the messages are those of these reads, in order.
    case disk([SpoolRead])
}

/// Consecutive records of one segment file, to be read with one `pread`
/// (``SpoolDisk/read(_:)``).
struct SpoolRead {
    /// The segment file.
    var path: String
    /// Its open file when it is the last segment (the file stays open while it is read,
    /// however the spool changes meanwhile); nil to open it by its path.
    var file: SpoolFile?
    /// One past the segment's last sequence: once the durable head reaches it, the spool
    /// may delete the file (so a read that finds it gone is planned again).
    var segmentEnd: UInt64
    /// The sequence of the first record read.
    var firstSequence: UInt64
    /// Where the first record starts in the file.
    var start: Int64
    /// The end offset in the file of each record read.
    var ends: [UInt32]
    /// The sequences to return, in order: those of the records read that are not
    /// acknowledged.
    var wanted: [UInt64]
}
