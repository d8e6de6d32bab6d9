import Synchronization
import LocTrackSystem

// The spool: every message loctrack publishes goes to disk here first, and leaves only
// once the server has it (an MQTT broker's acknowledgement, a Traccar server's 2xx), so
// that nothing is lost when the server or the network goes away or loctrack is killed.
// docs/spool.md describes it for users. Below, "the broker" and "the publisher" stand for
// any server and the thread that sends to it (LocTrackMQTT's publisher, LocTrackTraccar's
// uplink); each has its own spool folder.
//
// On-disk format, all integers little-endian, all files mode 0600 in a 0700 folder:
//
//   DIR/lock     empty; flocked (exclusive) while a Spool has the folder open.
//   DIR/head     the durable head, the first sequence not acknowledged (SpoolHeadFile):
//                two 16-byte slots ["LTSH"][u64 head][u32 CRC-32 of the 12 bytes before];
//                the head is the larger of the valid slots. Writes alternate slots
//                (pwrite + fdatasync), so a torn write leaves the previous head.
//   DIR/<20-digit first sequence>.seg
//                segments: records back to back, sequence numbers consecutive from the
//                name's, and consecutive from one segment to the next. A new segment is
//                started once a record would take the last one past ~1 MiB.
//     record     [u32 body length][u32 CRC-32 of body][body]
//     body       [u8 qos][u8 retain (0/1)][u16 topic length][topic UTF-8][payload]
//
// CRC-32 is zlib's (CRC32.swift). Sequence numbers are never reused, also across
// restarts: the next one is the end of the last segment, or the head when the segments
// are all acknowledged and gone.
//
// Crash safety: an append writes and fdatasyncs each segment before it creates the next
// one (and syncs the folder for it), so after a crash only the last segment can end in a
// torn record; opening cuts that off. Any other bad record is reported as corrupt with
// its file and offset, never skipped. The head is written before the segments below it
// are deleted, so a crash in between only leaves files that opening deletes.
//
// Locking: `SpoolState` (the index, the recent messages, what the head file holds) is
// behind a mutex that is held only to decide and to record, never across a system call:
// a call takes the mutex to plan (`SpoolState.planAppend`, `headAction`,
// `deletableSegments`, `planRead`), releases it, makes the system calls (`SpoolDisk`,
// `SpoolHeadFile`), and takes it again to record what the disk now holds. The writes
// are made by two writers, each in its turn, one at a time:
//
//   the appender    (the append turn) creates segments and writes records to the last
//                   one, the only writer of segment files;
//   the head writer (the head turn) writes the head file, then deletes the segment
//                   files below the durable head: for the publisher's acknowledgements,
//                   and for an append whose batch took the spool over its limit.
//
// A turn is a mutex of its own, held across its system calls; the state's mutex is
// taken inside a turn (briefly, to plan and to record), never the other way round, and
// no call holds both turns, nor takes another component's lock. So acknowledging
// and reading never wait for an append's write or fdatasync, and the head file sees its
// writes in order. Reads take no turn: they read records the index holds (written, so
// never truncated again) through the last segment's shared open file, or open an older
// segment by its path; the head writer deletes a segment only once every one of its
// records is below the durable head, and a read that finds its file gone meanwhile is
// planned again from the new head.

/// A durable FIFO of messages on disk, between the producer of fixes and the publisher
/// thread. Thread-safe: the producer appends from one thread or task, the publisher
/// reads and acknowledges from another. The state's mutex is never held across a
/// system call; the writes are made in two turns (the top of Spool.swift), so an
/// acknowledgement never waits for an append's `fdatasync`, only for another head write.
package final class Spool: Sendable {
    /// The size a segment grows to before the next is started.
    package static let defaultSegmentBytes: Int64 = 1 << 20

    package let directory: String
    /// The most record bytes kept unacknowledged (see ``append(_:)``).
    package let limitBytes: Int64
    /// Decisions and bookkeeping only: never held across a system call.
    private let state: Mutex<SpoolState>
    /// The appender's turn: held while an append creates segments and writes and syncs
    /// records, so appends reach the segment files one after the other.
    private let appendTurn: Mutex<Void>
    /// The head writer's turn, with the head file it writes: held while the head is
    /// written and synced and the segment files below it are deleted.
    /// nil only once the spool is going away.
    private let headTurn: Mutex<SpoolHeadFile?>
    /// `DIR/lock`, flocked for as long as the spool is open: closed after ``deinit``'s
    /// body, so after the segments and the head file.
    private let lock: FileDescriptor

    /// Opens the spool in `directory`, creating the folder (0700) and its head file when
    /// missing, and recovering after a crash (see the top of Spool.swift).
    /// - Parameter segmentBytes: the segment size; other than the default only in tests.
    /// - Throws: ``SpoolError/Kind/inUse`` when another `Spool` has it open, in this
    ///   process or another; `.corrupt` when a file holds what the spool never writes.
    package init(directory: String, limitBytes: Int64, segmentBytes: Int64 = Spool.defaultSegmentBytes) throws(SpoolError) {
        self.directory = directory
        self.limitBytes = limitBytes
        let opened = try SpoolState.open(directory: directory, limitBytes: limitBytes, segmentBytes: segmentBytes)
        state = Mutex(opened.state)
        appendTurn = Mutex(())
        headTurn = Mutex(opened.headFile)
        lock = opened.lock
    }

    /// Closes every descriptor, the lock last.
    deinit {
        do {
            let tail = state.withLock { $0.takeTail() }
            _ = tail
        }
        headTurn.withLock { $0 = nil }
    }

    /// Appends `messages` in order, durably: one `pwrite` per segment touched and an
    /// `fdatasync` before it returns. Then, while the pending bytes exceed the limit, the
    /// oldest unacknowledged messages are dropped (the new head written durably) and
    /// counted in the result; the newest message is kept even when it alone exceeds the
    /// limit, so an undersized limit still publishes the latest fix.
    ///
    /// On an error nothing of the batch is stored, except when it spanned two segments
    /// and the second failed: then the records in the first are (``nextSequence`` tells).
    package func append(_ messages: [SpoolMessage]) throws(SpoolError) -> SpoolAppendResult {
        let firstSequence = try appendTurn.withLock { (_) throws(SpoolError) -> UInt64 in try appendInTurn(messages) }
        // Over the limit, the oldest go: the head writer writes the new head, durably,
        // before this returns. Not in the append turn, which no head write needs.
        var dropped = 0
        if let count = state.withLock({ $0.dropOldestOverLimit() }) {
            dropped = count
            try flushAcknowledgements(durably: true)
        }
        return SpoolAppendResult(firstSequence: firstSequence, count: messages.count, droppedOldest: dropped)
    }

    /// Carries out an append, in the append turn: plans it, then per chunk creates the
    /// segment (when it starts one), writes the records and records them in the state.
    /// The last segment's `fdatasync` comes after the state has its records, so the
    /// publisher's thread can take them meanwhile; the plan's file stays open for it even
    /// if the head writer deletes the segment.
    /// - Returns: the sequence of the first message.
    private func appendInTurn(_ messages: [SpoolMessage]) throws(SpoolError) -> UInt64 {
        let plan = try state.withLock { (state) throws(SpoolError) in try state.planAppend(messages) }
        var file = plan.tail
        for chunk in plan.chunks {
            if let firstSequence = chunk.newSegment {
                let path = directory + "/" + SpoolSegment.fileName(firstSequence)
                let created = try SpoolDisk.createSegment(path, in: directory)
                let replaced = state.withLock { $0.segmentStarted(firstSequence, file: created) }
                _ = replaced  // closed here, after the mutex, unless a read still holds it
                file = created
            }
            guard let file else { preconditionFailure("an append planned into a segment that is not open") }
            var bytes: [UInt8] = []
            for message in messages[chunk.messages] { SpoolRecord.encode(message, into: &bytes) }
            try SpoolDisk.write(bytes, to: file, at: chunk.offset, sync: chunk.sync)
            state.withLock { $0.appended(chunk, messages: messages[chunk.messages]) }
        }
        if let file, !plan.chunks.isEmpty { try SpoolDisk.sync(file) }
        return plan.firstSequence
    }

    /// Unacknowledged messages in order from `sequence` (inclusive; the head when
    /// `sequence` is below it), at most `limit`: what the publisher sends next. Read from
    /// disk, so memory stays bounded however long the backlog, unless just appended.
    package func messages(from sequence: UInt64, limit: Int) throws(SpoolError) -> [(sequence: UInt64, message: SpoolMessage)] {
        planning: while true {
            let reads: [SpoolRead]
            switch state.withLock({ $0.planRead(from: sequence, limit: limit) }) {
            case .recent(let messages): return messages
            case .disk(let planned): reads = planned
            }
            var result: [(sequence: UInt64, message: SpoolMessage)] = []
            for read in reads {
                do {
                    result += try SpoolDisk.read(read)
                } catch where SpoolDisk.isMissingFile(error) {
                    // Deleted since the plan, which the head writer does only once the
                    // durable head passed the whole segment (acknowledged or dropped
                    // meanwhile): plan again from the new head. Otherwise it is damage.
                    guard state.withLock({ $0.index.durableHead >= read.segmentEnd }) else { throw error }
                    continue planning
                }
            }
            return result
        }
    }

    /// The broker acknowledged `sequence` (QoS 1 and 2; for QoS 0, once written to the
    /// socket). Acknowledgements may come out of order: the head moves over the
    /// acknowledged prefix only. In memory until ``flushAcknowledgements()``.
    package func acknowledge(_ sequence: UInt64) {
        state.withLock { $0.index.acknowledge(sequence) }
    }

    /// Several acknowledgements under one lock (the publisher takes them a step at a time).
    package func acknowledge(_ sequences: some Sequence<UInt64>) {
        state.withLock { state in
            for sequence in sequences { state.index.acknowledge(sequence) }
        }
    }

    /// Makes the acknowledgements durable: writes the head if it moved (one small write
    /// and `fdatasync`), then deletes the segment files wholly below it. Cheap when
    /// nothing was acknowledged since the last call. In the head turn: it waits for no
    /// append, only for another head write.
    /// - Parameter durably: sync the head now, else at most once a second
    ///   (``SpoolState/headAction(durably:now:)``).
    package func flushAcknowledgements(durably: Bool = true) throws(SpoolError) {
        try headTurn.withLock { (headFile) throws(SpoolError) in
            let now = Monotonic.milliseconds
            let action = state.withLock { $0.headAction(durably: durably, now: now) }
            switch action {
            case .write(let head, let sync): try headFile!.write(head, sync: sync)
            case .sync: try headFile!.sync()
            case .none, .alreadySynced: break
            }
            // The head first, then the files below it.
            let deletable = state.withLock { (state) -> [SpoolSegment] in
                state.headWritten(action, now: now)
                return state.deletableSegments()
            }
            for segment in deletable {
                try SpoolDisk.delete(segment.path)
                let closed = state.withLock { $0.segmentDeleted(segment) }
                _ = closed  // the last segment's file, when it went: closed here, after the mutex
            }
        }
    }

    /// The head: the first sequence not acknowledged (in memory, durable or not).
    package var firstUnacknowledged: UInt64 { state.withLock { $0.index.head } }

    /// The sequence the next appended message gets.
    package var nextSequence: UInt64 { state.withLock { $0.index.nextSequence } }

    /// The messages not acknowledged.
    package var pendingCount: Int { state.withLock { $0.index.pendingCount } }

    /// The record bytes (headers included) from the head on: what the limit bounds.
    /// Messages acknowledged out of order count until the head passes them, as they stay
    /// on disk until then.
    package var pendingBytes: Int64 { state.withLock { $0.index.pendingBytes } }
}
