/// Everything a ``Spool`` holds behind its mutex: the index of its messages
/// (``SpoolIndex``), the head as written to the head file and when it was last synced,
/// the recent messages, and the last segment's open file. Its methods make no system
/// call and read no clock (the time comes in as `now`): they decide what the spool
/// writes, reads or deletes (a plan: ``SpoolAppendPlan``, ``SpoolHeadAction``, the
/// segments to delete, ``SpoolReadPlan``), and record what was done once the disk
/// agrees. ``Spool`` carries the plans out with the mutex released, so they are tested
/// without a disk (`SpoolStateTests.swift`).
///
/// The one thing to watch: a ``SpoolFile`` closes its descriptor when its last
/// reference goes, so the methods that let go of one return it to the caller, to be
/// released after the mutex.
struct SpoolState {
    let directory: String
    let limitBytes: Int64
    /// The size past which appends start a new segment.
    let segmentBytes: Int64
    /// Which segments exist, the head, acknowledgements, what is pending.
    var index: SpoolIndex
    /// The head as last written to the head file, synced or not.
    var writtenHead: UInt64
    /// When the head file was last synced (``Monotonic/milliseconds``).
    var lastHeadSync: Int64
    /// The last segment, open for reading and writing; nil when a new one is to be started.
    var tail: SpoolFile?
    /// The messages appended last, in order, the first with sequence ``recentFirst``: the
    /// publisher usually sends what was just appended, and takes it from here instead of
    /// reading it back from disk. At most about 2 × ``recentLimit`` messages.
    var recent: [SpoolMessage] = []
    var recentFirst: UInt64 = 0
    static let recentLimit = 2048

    /// The state of a spool just opened: `index` as found on disk, its head as the head
    /// file holds it (synced at `now`), and `tail` the last segment's file when appends
    /// may continue it.
    init(directory: String, limitBytes: Int64, segmentBytes: Int64, index: SpoolIndex, tail: SpoolFile?, now: Int64) {
        precondition(segmentBytes > 0, "a segment size of \(segmentBytes) bytes")
        self.directory = directory
        self.limitBytes = limitBytes
        self.segmentBytes = segmentBytes
        self.index = index
        writtenHead = index.head
        lastHeadSync = now
        self.tail = tail
    }

    // MARK: Making acknowledgements durable

    /// How long an acknowledged head may stay unsynced.
    static let headSyncMilliseconds: Int64 = 1000

    /// What to do with the head file so that it holds the head (see
    /// ``Spool/flushAcknowledgements(durably:)``).
    /// - Parameter durably: sync the head now. Otherwise it is written at once (which a
    ///   SIGKILL cannot undo) and synced at most once a second, or when a segment file
    ///   could go (files are deleted only below a synced head: a power cut must never
    ///   leave a head that points into a deleted file). So a power cut may send again
    ///   what was acknowledged in the last second; a SIGKILL never does.
    func headAction(durably: Bool, now: Int64) -> SpoolHeadAction {
        let sync = durably || index.oldestSegmentCanGo || now - lastHeadSync >= Self.headSyncMilliseconds
        if index.head > writtenHead { return .write(index.head, sync: sync) }
        guard sync else { return .none }
        return index.durableHead < writtenHead ? .sync(writtenHead) : .alreadySynced
    }

    /// `action` (from ``headAction(durably:now:)``) was carried out at `now`: the head
    /// file holds what it wrote, durable if it synced.
    mutating func headWritten(_ action: SpoolHeadAction, now: Int64) {
        switch action {
        case .none:
            return
        case .write(let head, sync: false):
            writtenHead = head
            return
        case .write(let head, sync: true):
            writtenHead = head
        case .sync, .alreadySynced:
            break
        }
        index.headMadeDurable(writtenHead)
        lastHeadSync = now
    }

    /// The segment files that may be deleted now, oldest first: those wholly below the
    /// durable head (``SpoolIndex/deletableSegments(tailOpen:segmentBytes:)``).
    func deletableSegments() -> [SpoolSegment] {
        index.deletableSegments(tailOpen: tail != nil, segmentBytes: segmentBytes)
    }

    /// The file of `segment`, the oldest, was deleted (``deletableSegments()`` named it).
    /// - Returns: the last segment's file when `segment` was the last one: no longer the
    ///   state's, to be released by the caller after the mutex.
    mutating func segmentDeleted(_ segment: SpoolSegment) -> SpoolFile? {
        precondition(index.segments.first?.firstSequence == segment.firstSequence, "a segment deleted out of order")
        index.oldestSegmentDeleted()
        guard let file = tail, file.path == segment.path else { return nil }
        tail = nil
        return file
    }

    /// Lets go of the last segment's file, to close the spool.
    mutating func takeTail() -> SpoolFile? {
        defer { tail = nil }
        return tail
    }
}

/// What ``SpoolState/headAction(durably:now:)`` decides to do with the head file.
enum SpoolHeadAction: Equatable {
    /// It holds the head: nothing to do.
    case none
    /// Write `head` into the older slot, and `fdatasync` it when `sync`.
    case write(UInt64, sync: Bool)
    /// `fdatasync` it: `head`, written earlier unsynced, becomes durable.
    case sync(UInt64)
    /// It holds the head, synced: nothing to write, but the second until the next sync
    /// starts again.
    case alreadySynced
}
