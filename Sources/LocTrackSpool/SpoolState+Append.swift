extension SpoolState {
    /// How `messages` are to be appended (see ``Spool/append(_:)``): their records cut
    /// into one chunk per segment touched, each to be written with one `pwrite` at the
    /// segment's end. Every chunk but the first starts a new segment, and every chunk
    /// but the last is synced before the next one's segment is created, so that after a
    /// crash only the last segment can end in a torn record. The last chunk's sync is
    /// the appender's, after the index records the chunk.
    ///
    /// The plan holds while the appender carries it out, as only the appender adds
    /// segments and records. The acknowledgement side may meanwhile delete the last
    /// segment only when it is full (``SpoolIndex/deletableSegments(tailOpen:segmentBytes:)``),
    /// and a full last segment is never written to: the plan starts a new one.
    /// - Throws: ``SpoolError/Kind/invalidMessage(reason:)`` for a message that cannot be
    ///   stored; nothing of the batch is then written.
    func planAppend(_ messages: [SpoolMessage]) throws(SpoolError) -> SpoolAppendPlan {
        for message in messages {
            if let reason = SpoolRecord.problem(with: message) {
                throw SpoolError(path: directory, kind: .invalidMessage(reason: reason))
            }
        }
        var chunks: [SpoolAppendChunk] = []
        var sequence = index.nextSequence
        var size = index.segments.last?.size ?? 0
        var next = 0
        while next < messages.count {
            var newSegment: UInt64?
            // After the first chunk, the segment is full: that is where the chunk ended.
            let firstSize = Int64(SpoolRecord.size(of: messages[next]))
            if !chunks.isEmpty || index.startsSegment(forRecordOf: firstSize, tailOpen: tail != nil, segmentBytes: segmentBytes) {
                newSegment = sequence
                size = 0
            }
            let first = next, offset = size
            var ends: [UInt32] = []
            repeat {
                let recordSize = Int64(SpoolRecord.size(of: messages[next]))
                if !ends.isEmpty, size + recordSize > segmentBytes { break }
                size += recordSize
                ends.append(UInt32(size))
                next += 1
            } while next < messages.count
            sequence += UInt64(ends.count)
            chunks.append(SpoolAppendChunk(
                newSegment: newSegment, messages: first..<next, offset: offset, ends: ends, sync: next < messages.count))
        }
        return SpoolAppendPlan(firstSequence: index.nextSequence, chunks: chunks, tail: tail)
    }

    /// The appender created the file of a new segment for `firstSequence`, now the last.
    /// - Returns: the previous last segment's file: no longer the state's, to be released
    ///   by the caller after the mutex (the previous segment, if wholly acknowledged,
    ///   goes at the next flush).
    mutating func segmentStarted(_ firstSequence: UInt64, file: SpoolFile) -> SpoolFile? {
        let segment = SpoolSegment(firstSequence: firstSequence, directory: directory)
        precondition(file.path == segment.path, "a segment file of another name")
        index.segmentStarted(segment)
        defer { tail = file }
        return tail
    }

    /// The appender wrote `chunk`, the records of `messages`, at the end of the last
    /// segment: they are in the index, and in ``recent``, from now on.
    mutating func appended(_ chunk: SpoolAppendChunk, messages: ArraySlice<SpoolMessage>) {
        precondition(index.segments.last?.size == chunk.offset, "records written elsewhere than the last segment's end")
        let first = index.nextSequence
        index.appended(ends: chunk.ends)
        remember(messages, from: first)
    }

    /// Drops the oldest messages while the pending bytes exceed the limit (the index
    /// decides which: ``SpoolIndex/dropOldest(toFit:)``). The caller then writes the new
    /// head durably (``headAction(durably:now:)`` with `durably`) before its append
    /// returns, so that a restart does not bring the dropped messages back.
    /// - Returns: nil when within the limit; otherwise how many dropped messages had not
    ///   been acknowledged (possibly none: the newest message is always kept).
    mutating func dropOldestOverLimit() -> Int? {
        guard index.pendingBytes > limitBytes else { return nil }
        return index.dropOldest(toFit: limitBytes)
    }

    /// Keeps `messages`, just appended from `sequence` on, in ``recent``.
    private mutating func remember(_ messages: ArraySlice<SpoolMessage>, from sequence: UInt64) {
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
}

/// How an append is carried out: what ``SpoolState/planAppend(_:)`` decided.
struct SpoolAppendPlan {
    /// The sequence of the batch's first message.
    var firstSequence: UInt64
    /// One per segment touched, in order; none for an empty batch.
    var chunks: [SpoolAppendChunk]
    /// The last segment's file, which the first chunk writes to unless it starts a
    /// segment: held by the plan, so it stays open while the appender writes.
    var tail: SpoolFile?
}

/// The records of a batch that go to one segment, with one `pwrite`.
struct SpoolAppendChunk: Equatable {
    /// The segment to create first, named for the chunk's first sequence; nil to write at
    /// the end of the last segment.
    var newSegment: UInt64?
    /// Which of the batch's messages.
    var messages: Range<Int>
    /// Where in the segment file the records go: its size before the write.
    var offset: Int64
    /// The end offset of each record in the file, as the index records them.
    var ends: [UInt32]
    /// `fdatasync` the segment right after the write: every chunk but the last, so that
    /// a segment is synced before the next one is created.
    var sync: Bool
}
