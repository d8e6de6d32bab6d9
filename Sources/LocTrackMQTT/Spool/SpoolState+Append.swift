import LocTrack
import LocTrackSystem

extension SpoolState {
    /// Appends `messages` (see ``Spool/append(_:)``): their records are encoded into one
    /// buffer per segment touched, written with one `pwrite` at the segment's end and
    /// `fdatasync`ed; only then is the next segment created. So after a crash only the
    /// last segment can end in a torn record, which recovery cuts off.
    ///
    /// On an error the batch's records in earlier, completed segments stay (they are
    /// durable; ``nextSequence`` says how far it got), and the failed segment is cut
    /// back to where it was, so the next append continues cleanly.
    ///
    /// - Parameter lastSync: set to a duplicate of the last segment's descriptor, whose
    ///   `fdatasync` the caller makes after releasing the lock (and then closes), so that
    ///   the publisher's thread does not wait for the disk; nil when there is nothing to sync.
    mutating func append(_ messages: [SpoolMessage], lastSync: inout Int32?) throws(SpoolError) -> SpoolAppendResult {
        for message in messages {
            if let reason = SpoolRecord.problem(with: message) {
                throw SpoolError(path: directory, kind: .invalidMessage(reason: reason))
            }
        }
        let firstSequence = index.nextSequence
        // Should a write fail, what is remembered may no longer match the disk.
        recent = []
        var next = 0
        while next < messages.count {
            let firstSize = Int64(SpoolRecord.size(of: messages[next]))
            if index.startsSegment(forRecordOf: firstSize, tailOpen: tailDescriptor != nil, segmentBytes: segmentBytes) {
                try startSegment()
            }
            var size = index.segments[index.segments.count - 1].size
            var bytes: [UInt8] = []
            var ends: [UInt32] = []
            repeat {
                let recordSize = Int64(SpoolRecord.size(of: messages[next]))
                if !ends.isEmpty, size + recordSize > segmentBytes { break }
                SpoolRecord.encode(messages[next], into: &bytes)
                size += recordSize
                ends.append(UInt32(size))
                next += 1
            } while next < messages.count
            // A segment is synced before the next one starts (only the last may end torn);
            // the last one's sync is left to the caller, outside the lock.
            let isLastChunk = next == messages.count
            try writeToTail(bytes, ends: ends, sync: !isLastChunk)
            if isLastChunk, let descriptor = tailDescriptor {
                if let duplicate = duplicateDescriptor(descriptor) {
                    lastSync = duplicate
                } else {
                    try io(index.segments[index.segments.count - 1].path, "sync") { () throws(Errno) in try syncData(descriptor) }
                }
            }
        }
        remember(messages, from: firstSequence)
        let dropped = try dropOldestOverLimit()
        return SpoolAppendResult(firstSequence: firstSequence, count: messages.count, droppedOldest: dropped)
    }

    /// Keeps `messages`, just appended from `sequence` on, in ``recent``.
    private mutating func remember(_ messages: [SpoolMessage], from sequence: UInt64) {
        if recent.isEmpty || recentFirst + UInt64(recent.count) != sequence {
            recent = []
            recentFirst = sequence
        }
        recent += messages
        if recent.count > 2 * Self.recentLimit {
            let surplus = recent.count - Self.recentLimit
            recent.removeFirst(surplus)
            recentFirst += UInt64(surplus)
        }
    }

    /// Writes `bytes`, whole records ending at `ends`, at the end of the last segment.
    private mutating func writeToTail(_ bytes: [UInt8], ends: [UInt32], sync: Bool) throws(SpoolError) {
        guard let descriptor = tailDescriptor else { return }
        guard let last = index.segments.last else { return }
        let path = last.path, offset = last.size
        do {
            try writeAll(descriptor, bytes, at: offset)
            if sync { try syncData(descriptor) }
        } catch {
            // Cut off what part of the batch reached the file. Should that fail too, the
            // next append overwrites it from the same offset, and recovery cuts off any rest.
            try? truncateFile(descriptor, to: offset)
            throw .io(path, "append to", error.code)
        }
        index.appended(ends: ends)
    }

    /// Starts `DIR/<nextSequence>.seg` and syncs the folder, so that the new file, and
    /// the messages about to be written to it, survive a power cut.
    private mutating func startSegment() throws(SpoolError) {
        let segment = SpoolSegment(firstSequence: index.nextSequence, directory: directory)
        let descriptor = try io(segment.path, "create") { () throws(Errno) in
            try openFile(segment.path, [.readWrite, .create, .exclusive], mode: 0o600)
        }
        do {
            try io(directory, "sync the folder") { () throws(Errno) in try syncDirectory(directory) }
        } catch {
            closeDescriptor(descriptor)
            try? removeFile(segment.path)
            throw error
        }
        if let tailDescriptor { closeDescriptor(tailDescriptor) }
        tailDescriptor = descriptor
        // The previous segment, if wholly acknowledged, goes at the next flush.
        index.segmentStarted(segment)
    }

    /// Drops the oldest messages while the pending bytes exceed the limit (the index
    /// decides which: ``SpoolIndex/dropOldest(toFit:)``). The new head is written before
    /// this returns, so a restart does not bring the dropped messages back.
    /// - Returns: how many dropped messages had not been acknowledged.
    private mutating func dropOldestOverLimit() throws(SpoolError) -> Int {
        guard index.pendingBytes > limitBytes else { return 0 }
        let dropped = index.dropOldest(toFit: limitBytes)
        try flushAcknowledgements()
        return dropped
    }
}
