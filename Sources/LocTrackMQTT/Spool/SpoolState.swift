import LocTrack
import LocTrackSystem

/// Everything a ``Spool`` holds behind its mutex: the index of its messages
/// (``SpoolIndex``, pure), the head as written to the head file, the recent messages,
/// and the open descriptors (the lock, the head file, the last segment for appending).
/// The methods here do the file work and update the index once the disk agrees.
struct SpoolState {
    let directory: String
    let limitBytes: Int64
    /// The size past which appends start a new segment.
    let segmentBytes: Int64
    /// Which segments exist, the head, acknowledgements, what is pending.
    var index: SpoolIndex
    /// The head as last written to the head file, synced or not.
    var writtenHead: UInt64
    var lastHeadSync = Monotonic.milliseconds
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

    /// Writes the head if it moved, then deletes the segments wholly below it.
    /// - Parameter durably: sync the head now. Otherwise it is written at once (which a
    ///   SIGKILL cannot undo) and synced at most once a second, or when a segment file
    ///   could go (files are deleted only below a synced head: a power cut must never
    ///   leave a head that points into a deleted file). So a power cut may send again
    ///   what was acknowledged in the last second; a SIGKILL never does.
    mutating func flushAcknowledgements(durably: Bool = true) throws(SpoolError) {
        let now = Monotonic.milliseconds
        let sync = durably || index.oldestSegmentCanGo || now - lastHeadSync >= Self.headSyncMilliseconds
        if index.head > writtenHead {
            try headFile.write(index.head, sync: sync)
            writtenHead = index.head
        } else if sync, index.durableHead < writtenHead {
            try headFile.sync()
        }
        if sync {
            index.headMadeDurable(writtenHead)
            lastHeadSync = now
        }
        try removeSegmentsBelowDurableHead()
    }

    /// How long an acknowledged head may stay unsynced.
    static let headSyncMilliseconds: Int64 = 1000

    /// Deletes the segment files the index says may go (``SpoolIndex/deletableSegment(tailOpen:segmentBytes:)``).
    /// The deletions need no folder sync: a deletion a power cut undoes is redone when the
    /// spool is next opened.
    mutating func removeSegmentsBelowDurableHead() throws(SpoolError) {
        while let oldest = index.deletableSegment(tailOpen: tailDescriptor != nil, segmentBytes: segmentBytes) {
            do {
                try removeFile(oldest.path)
            } catch where error == .noSuchFile {
                // Already gone.
            } catch {
                throw .io(oldest.path, "delete", error.code)
            }
            if index.segments.count == 1, let descriptor = tailDescriptor {
                closeDescriptor(descriptor)
                tailDescriptor = nil
            }
            index.oldestSegmentDeleted()
        }
    }

    /// Closes every descriptor, the lock last.
    func close() {
        if let tailDescriptor { closeDescriptor(tailDescriptor) }
        headFile.close()
        closeDescriptor(lockDescriptor)
    }
}
