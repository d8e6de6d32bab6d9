import LocTrackSystem

/// What ``SpoolState/open(directory:limitBytes:segmentBytes:)`` opened.
struct OpenedSpool: ~Copyable {
    var state: SpoolState
    var headFile: SpoolHeadFile
    /// `DIR/lock`, flocked.
    var lock: FileDescriptor
}

extension SpoolState {
    /// Opens the spool in `directory`, creating it (mode 0700) when missing, and recovers
    /// what a crash left: a torn record at the end of the last segment is cut off,
    /// segments wholly below the head are deleted, and anything else that is wrong is
    /// reported rather than skipped, as skipping would lose messages silently. Runs
    /// before the spool is shared, so it needs no lock.
    /// - Returns: the state, the head file, and `DIR/lock`, flocked (closed last, when the
    ///   spool is).
    static func open(directory: String, limitBytes: Int64, segmentBytes: Int64) throws(SpoolError) -> OpenedSpool {
        try io(directory, "create") { () throws(Errno) in try makeDirectories(directory, mode: 0o700) }
        let lockPath = directory + "/lock"
        let lock = try io(lockPath, "open") { () throws(Errno) in try openFile(lockPath, [.readWrite, .create], mode: 0o600) }
        var tail: SpoolFile?
        let segments: [SpoolSegment], head: UInt64, headFile: SpoolHeadFile
        do throws(SpoolError) {
            do {
                try lockFile(lock.rawValue, .exclusive, waiting: false)
            } catch where error == .wouldBlock {
                throw SpoolError(path: directory, kind: .inUse)
            } catch {
                throw .io(lockPath, "lock", error.code)
            }
            (segments, tail) = try scanSegments(in: directory)
            let stored = try SpoolHeadFile.open(directory: directory)
            // No head file: a new spool, or one whose creation was cut short. Nothing
            // has been acknowledged then, or at worst messages are sent again.
            head = stored?.head ?? segments.first?.firstSequence ?? 0
            if let first = segments.first, head < first.firstSequence {
                throw .corrupt(directory + "/head", at: nil,
                               "the head is sequence \(head) but the oldest segment starts at \(first.firstSequence)")
            }
            if let stored {
                headFile = stored.file
            } else {
                headFile = try SpoolHeadFile.create(directory: directory, head: head)
            }
        } catch {
            tail = nil
            throw error
        }
        // A last segment ending below the head cannot be continued: the next sequence
        // is the head's, and segments hold sequences without gaps.
        if let last = segments.last, last.endSequence < head { tail = nil }
        var state = SpoolState(
            directory: directory, limitBytes: limitBytes, segmentBytes: segmentBytes,
            index: SpoolIndex(segments: segments, head: head), tail: tail, now: Monotonic.milliseconds)
        tail = nil
        do {
            for segment in state.deletableSegments() {
                try SpoolDisk.delete(segment.path)
                _ = state.segmentDeleted(segment)
            }
        } catch {
            _ = state.takeTail()
            throw error
        }
        return OpenedSpool(state: state, headFile: headFile, lock: lock)
    }

    /// Reads every segment of `directory`, oldest first, checking each record.
    /// - Returns: the segments, and the last one open for appending (nil when there is none).
    private static func scanSegments(in directory: String) throws(SpoolError) -> ([SpoolSegment], SpoolFile?) {
        let names = try io(directory, "list") { () throws(Errno) in try listDirectory(directory) }
        let firstSequences = names.compactMap(SpoolSegment.firstSequence(fromFileName:)).sorted()
        var segments: [SpoolSegment] = []
        for (index, firstSequence) in firstSequences.enumerated() {
            var segment = SpoolSegment(firstSequence: firstSequence, directory: directory)
            if let previous = segments.last, previous.endSequence != firstSequence {
                throw .corrupt(segment.path, at: nil, "starts at sequence \(firstSequence), but the segment before ends at \(previous.endSequence)")
            }
            let isLast = index == firstSequences.count - 1
            let file = try io(segment.path, "open") { () throws(Errno) in try openFile(segment.path, isLast ? .readWrite : .readOnly) }
            let descriptor = file.rawValue
            do {
                let bytes = try io(segment.path, "read") { () throws(Errno) in try readToEnd(descriptor) }
                segment.ends = try recordEnds(of: bytes, in: segment.path, isLast: isLast)
                if isLast, segment.size < Int64(bytes.count) {
                    // An append cut short by a crash: it never returned, so nothing is lost.
                    try io(segment.path, "cut the torn end of") { () throws(Errno) in
                        try truncateFile(descriptor, to: segment.size)
                        try syncData(descriptor)
                    }
                }
            }
            segments.append(segment)
            if isLast { return (segments, SpoolFile(path: segment.path, file: file)) }
        }
        return (segments, nil)
    }

    /// The end offsets of the records in `bytes`. In the last segment the first record
    /// that is torn or fails its check ends the spool, unless a valid record follows it
    /// (then it is damage, not an interrupted append); anywhere else it is damage.
    private static func recordEnds(of bytes: [UInt8], in path: String, isLast: Bool) throws(SpoolError) -> [UInt32] {
        var ends: [UInt32] = []
        var offset = 0
        while offset < bytes.count {
            switch SpoolRecord.check(bytes, at: offset) {
            case .valid(let end):
                ends.append(UInt32(end))
                offset = end
            case .truncated where isLast:
                return ends
            case .invalid where isLast && !validRecordFollows(bytes, offset):
                return ends
            case .truncated:
                throw .corrupt(path, at: Int64(offset), "the file ends inside a record, and later segments follow")
            case .invalid(let reason):
                throw .corrupt(path, at: Int64(offset), reason)
            }
        }
        return ends
    }

    /// Whether the record at `offset` has a plausible length after which a valid record starts.
    private static func validRecordFollows(_ bytes: [UInt8], _ offset: Int) -> Bool {
        guard bytes.count - offset >= SpoolRecord.headerSize else { return false }
        let bodySize = Int(SpoolRecord.readLittleEndian(bytes, at: offset, size: 4))
        let next = offset + SpoolRecord.headerSize + bodySize
        guard bodySize <= SpoolRecord.maximumBodySize, next < bytes.count else { return false }
        if case .valid = SpoolRecord.check(bytes, at: next) { return true }
        return false
    }
}
