import LocTrack
import Synchronization
import LocTrackSystem

// The spool: every message loctrack publishes goes to disk here first, and leaves only
// once the broker has it, so that nothing is lost when the broker or the network goes
// away or loctrack is killed. docs/spool.md describes it for users.
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

/// A durable FIFO of messages on disk, between the producer of fixes and the publisher
/// thread. Thread-safe (a mutex inside): the producer appends from one thread or task,
/// the publisher reads and acknowledges from another. Calls that touch the disk hold the
/// mutex while they do, so an acknowledgement may wait for an append's `fdatasync`.
package final class Spool: Sendable {
    /// The size a segment grows to before the next is started.
    package static let defaultSegmentBytes: Int64 = 1 << 20

    package let directory: String
    /// The most record bytes kept unacknowledged (see ``append(_:)``).
    package let limitBytes: Int64
    private let state: Mutex<SpoolState>

    /// Opens the spool in `directory`, creating the folder (0700) and its head file when
    /// missing, and recovering after a crash (see the top of Spool.swift).
    /// - Parameter segmentBytes: the segment size; other than the default only in tests.
    /// - Throws: ``SpoolError/Kind/inUse`` when another `Spool` has it open, in this
    ///   process or another; `.corrupt` when a file holds what the spool never writes.
    package init(directory: String, limitBytes: Int64, segmentBytes: Int64 = Spool.defaultSegmentBytes) throws(SpoolError) {
        self.directory = directory
        self.limitBytes = limitBytes
        state = Mutex(try SpoolState.open(directory: directory, limitBytes: limitBytes, segmentBytes: segmentBytes))
    }

    deinit {
        state.withLock { $0.close() }
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
        var lastSync: Int32?
        let result = try state.withLock { (state) throws(SpoolError) in try state.append(messages, lastSync: &lastSync) }
        // The last segment's sync happens outside the lock, on a duplicate of its descriptor
        // (the segment may be closed or deleted meanwhile; the duplicate stays valid): the
        // publisher's thread can take and acknowledge messages while the disk syncs.
        if let descriptor = lastSync {
            defer { closeDescriptor(descriptor) }
            do {
                try syncData(descriptor)
            } catch {
                throw SpoolError(path: directory, kind: .io(operation: "sync", errorNumber: error.code))
            }
        }
        return result
    }

    /// Unacknowledged messages in order from `sequence` (inclusive; the head when
    /// `sequence` is below it), at most `limit`: what the publisher sends next. Read from
    /// disk, so memory stays bounded however long the backlog.
    package func messages(from sequence: UInt64, limit: Int) throws(SpoolError) -> [(sequence: UInt64, message: SpoolMessage)] {
        try state.withLock { (state) throws(SpoolError) in try state.messages(from: sequence, limit: limit) }
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
    /// nothing was acknowledged since the last call.
    package func flushAcknowledgements(durably: Bool = true) throws(SpoolError) {
        try state.withLock { (state) throws(SpoolError) in try state.flushAcknowledgements(durably: durably) }
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
