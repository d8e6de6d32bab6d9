import LocTrack
import LocTrackSystem

extension SpoolState {
    /// Up to `limit` unacknowledged messages from `sequence` on (see
    /// ``Spool/messages(from:limit:)``), read from the segment files: one `pread` per
    /// segment touched, of just the records wanted, each checked against its CRC again
    /// (the disk may have changed under the spool since it was opened).
    func messages(from sequence: UInt64, limit: Int) throws(SpoolError) -> [(sequence: UInt64, message: SpoolMessage)] {
        var result: [(sequence: UInt64, message: SpoolMessage)] = []
        var next = max(sequence, index.head)
        // What was just appended is still in memory (it runs up to nextSequence).
        if next >= recentFirst, next < recentFirst + UInt64(recent.count) {
            var position = Int(next - recentFirst)
            while result.count < limit, position < recent.count {
                let recordSequence = recentFirst + UInt64(position)
                if !index.isAcknowledged(recordSequence) { result.append((recordSequence, recent[position])) }
                position += 1
            }
            return result
        }
        while result.count < limit, let position = index.segmentIndex(containing: next) {
            let segment = index.segments[position]
            let first = Int(next - segment.firstSequence)
            // Enough records for the rest of the page, plus those acknowledged out of
            // order (skipped, so they must not shorten the page).
            let wanted = limit - result.count + index.acknowledged.count
            let last = min(segment.count, first + wanted)
            let records = try read(segment, records: first..<last, isTail: position == index.segments.count - 1)
            for (offset, position) in zip(records.offsets, first..<last) {
                let recordSequence = segment.firstSequence + UInt64(position)
                if index.isAcknowledged(recordSequence) { continue }
                result.append((recordSequence, SpoolRecord.decode(records.bytes, at: offset)))
                if result.count == limit { break }
            }
            next = segment.firstSequence + UInt64(last)
        }
        return result
    }

    /// The bytes of records `range` of `segment`, checked, and where each starts in them.
    private func read(_ segment: SpoolSegment, records range: Range<Int>, isTail: Bool) throws(SpoolError)
        -> (bytes: [UInt8], offsets: [Int]) {
        let start = segment.start(of: range.lowerBound)
        let count = Int(Int64(segment.ends[range.upperBound - 1]) - start)
        let bytes: [UInt8]
        if isTail, let tailDescriptor {
            bytes = try io(segment.path, "read") { () throws(Errno) in try readBytes(tailDescriptor, at: start, count: count) }
        } else {
            let descriptor = try io(segment.path, "open") { () throws(Errno) in try openFile(segment.path, .readOnly) }
            defer { closeDescriptor(descriptor) }
            bytes = try io(segment.path, "read") { () throws(Errno) in try readBytes(descriptor, at: start, count: count) }
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(range.count)
        var offset = 0
        for position in range {
            guard case .valid(let end) = SpoolRecord.check(bytes, at: offset), Int64(end) + start == Int64(segment.ends[position]) else {
                let reason: String
                switch SpoolRecord.check(bytes, at: offset) {
                case .invalid(let why): reason = why
                case .truncated: reason = "the file ends inside a record it held when the spool was opened"
                case .valid: reason = "a record of another length than when the spool was opened"
                }
                throw .corrupt(segment.path, at: start + Int64(offset), reason)
            }
            offsets.append(offset)
            offset = end
        }
        return (bytes, offsets)
    }
}
