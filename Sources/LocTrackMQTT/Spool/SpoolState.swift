import Glibc
import LocTrack

/// Everything a ``Spool`` knows, behind its mutex: the segments' record offsets, the
/// head in memory and on disk, acknowledgements that arrived out of order, and the open
/// descriptors (the lock, the head file, the last segment for appending).
struct SpoolState {
    let directory: String
    let limitBytes: Int64
    /// The size past which appends start a new segment.
    let segmentBytes: Int64
    /// The segments still on disk, oldest first; their sequences follow without gaps.
    var segments: [SpoolSegment]
    /// The first sequence not acknowledged, in memory (advanced by ``acknowledge(_:)``).
    var head: UInt64
    /// The head as the head file holds it: at most `head`.
    var durableHead: UInt64
    /// The head as last written to the head file, synced or not.
    var writtenHead: UInt64 = 0
    var lastHeadSync = Monotonic.milliseconds
    /// The sequence the next appended message gets.
    var nextSequence: UInt64
    /// Acknowledged sequences above `head`: those that arrived before an older one.
    var acknowledged: Set<UInt64> = []
    var headFile: SpoolHeadFile
    /// The last segment, open for reading and writing; nil when a new one is to be started.
    var tailDescriptor: Int32?
    /// `DIR/lock`, flocked for as long as the spool is open.
    let lockDescriptor: Int32
    /// The messages appended last, in order, the first with sequence ``recentFirst``: the
    /// publisher usually sends what was just appended, and takes it from here instead of
    /// reading it back from disk. At most about 2 × ``recentLimit`` messages.
    var recent: [SpoolMessage] = []
    var recentFirst: UInt64 = 0
    static let recentLimit = 2048

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

    /// Writes the head if it moved, then deletes the segments wholly below it.
    /// - Parameter durably: sync the head now. Otherwise it is written at once (which a
    ///   SIGKILL cannot undo) and synced at most once a second, or when a segment file
    ///   could go (files are deleted only below a synced head: a power cut must never
    ///   leave a head that points into a deleted file). So a power cut may send again
    ///   what was acknowledged in the last second; a SIGKILL never does.
    mutating func flushAcknowledgements(durably: Bool = true) throws(SpoolError) {
        let now = Monotonic.milliseconds
        let segmentCanGo = segments.count > 1 && (segments.first.map { $0.endSequence <= head } ?? false)
        let sync = durably || segmentCanGo || now - lastHeadSync >= Self.headSyncMilliseconds
        if head > writtenHead {
            try headFile.write(head, sync: sync)
            writtenHead = head
        } else if sync, durableHead < writtenHead {
            try headFile.sync()
        }
        if sync {
            durableHead = writtenHead
            lastHeadSync = now
        }
        try removeSegmentsBelowDurableHead()
    }

    /// How long an acknowledged head may stay unsynced.
    static let headSyncMilliseconds: Int64 = 1000

    /// Deletes the segment files whose records are all below the durable head (never
    /// above it: after a crash they would be needed). The last segment stays while it
    /// has room, so a spool acknowledged as fast as it fills does not create and delete
    /// a file per message. The deletions need no folder sync: a deletion a power cut
    /// undoes is redone when the spool is next opened.
    mutating func removeSegmentsBelowDurableHead() throws(SpoolError) {
        while let oldest = segments.first, oldest.endSequence <= durableHead {
            let isTail = segments.count == 1
            if isTail, tailDescriptor != nil, oldest.size < segmentBytes { return }
            do {
                try removeFile(oldest.path)
            } catch where error.code == ENOENT {
                // Already gone.
            } catch {
                throw .io(oldest.path, "delete", error.code)
            }
            if isTail, let descriptor = tailDescriptor {
                Glibc.close(descriptor)
                tailDescriptor = nil
            }
            segments.removeFirst()
        }
    }

    /// Closes every descriptor, the lock last.
    func close() {
        if let tailDescriptor { Glibc.close(tailDescriptor) }
        headFile.close()
        Glibc.close(lockDescriptor)
    }
}
