import LocTrackFormats
package import LocTrackProcess
/// The track writer's decisions (``TrackWriter``), with no file I/O and no clock: which
/// file each record goes to, when to append, sync, rotate and close, and how long to
/// wait for stdin. Each input returns the one thing to do next; ``TrackWriter`` does it
/// and reports back (``completed(now:)``, ``fileOpened(now:)``, ``failed(_:)``).
///
/// Kept apart from the files so that rotation, batching and the sync cadence are tested
/// in milliseconds with a clock and files of the test's own (swift-async-algorithms'
/// `BoundedBufferStateMachine` is the model).
///
/// - One append per file per read: consecutive records that go to the same file are
///   written together, so a flood costs one `pwrite` per file per read, not one per fix.
/// - `--sync`: the current file is synced at most every `syncSeconds`, after a read that
///   comes at least that long after the last sync, and also at that deadline when no
///   more records come (a quiet receiver's last fixes); always before another file is
///   opened and when stdin ends.
package struct TrackWriterStateMachine {
    package enum Action: Equatable {
        /// Wait for stdin (then ``framesRead(_:now:)`` or ``inputEnded()``); if `until` (a
        /// time on the monotonic clock, in milliseconds) comes first, ``deadlinePassed(now:)``.
        case wait(until: Int64?)
        /// Open (create or continue) the named file; no file is open.
        case open(String)
        /// Sync and close the current file, then open the named one.
        case rotate(to: String)
        /// Append these records to the current file, in one write.
        case append(ArraySlice<RecordFrame.Decoded>)
        /// `fdatasync` the current file.
        case sync
        /// Close the current file.
        case close
        case exit(ExitCode)
    }

    private enum Phase: Equatable {
        /// Between reads of stdin.
        case waiting
        /// Writing what one read brought (``batch``, from ``next`` on).
        case writing
        /// Stdin ended: sync, close, exit 0.
        case ending
        case finished
    }

    private var names: TrackFileNames
    private let syncSeconds: Double
    /// `syncSeconds` for deadlines; a `--sync` too long for the clock is never due.
    private let syncMilliseconds: Int64
    private var phase = Phase.waiting
    /// When the last sync was decided (at first: when the writer started).
    private var lastSync: Int64
    /// The open file's name.
    private var file: String?
    /// Written to since its last sync (or since it was opened).
    private var unsynced = false
    /// The file asked for by the last `open` or `rotate`.
    private var opening: String?
    /// The frames of the read being written; released before the next read, so that the
    /// reader's buffer, which their payloads share, is not copied by the next read.
    private var batch: [RecordFrame.Decoded] = []
    private var next = 0

    /// - Parameters:
    ///   - names: the file name for each record's UTC time (``TrackPathPattern``).
    ///   - syncSeconds: `--sync`; 0 syncs after every read.
    ///   - now: the monotonic clock when the writer starts, in milliseconds.
    package init(names: TrackFileNames, syncSeconds: Double, now: Int64) {
        self.names = names
        self.syncSeconds = syncSeconds
        let milliseconds = syncSeconds * 1000
        syncMilliseconds = milliseconds < Double(Int64.max) ? Int64(milliseconds) : .max
        lastSync = now
    }

    /// What to do first: wait for stdin.
    package var start: Action { .wait(until: nil) }

    // MARK: Stdin

    /// A read brought `frames` (none when it held only part of one).
    package mutating func framesRead(_ frames: [RecordFrame.Decoded], now: Int64) -> Action {
        precondition(phase == .waiting, "frames read while \(phase)")
        (batch, next, phase) = (frames, 0, .writing)
        return writeNext(now: now)
    }

    /// The deadline of the last `wait` passed with nothing on stdin.
    package mutating func deadlinePassed(now: Int64) -> Action {
        precondition(phase == .waiting, "deadline passed while \(phase)")
        return unsynced ? sync(now: now) : waitForInput()
    }

    /// loctrack closed the pipe (or is gone).
    package mutating func inputEnded() -> Action {
        precondition(phase == .waiting, "input ended while \(phase)")
        phase = .ending
        return end()
    }

    // MARK: File operations

    /// The last `open` or `rotate` succeeded.
    package mutating func fileOpened(now: Int64) -> Action {
        guard let name = opening else { preconditionFailure("opened without an open") }
        (file, opening, unsynced) = (name, nil, false)
        return completed(now: now)
    }

    /// The last `append`, `sync` or `close` succeeded.
    package mutating func completed(now: Int64) -> Action {
        switch phase {
        case .writing: return writeNext(now: now)
        case .waiting: return waitForInput()
        case .ending: return end()
        case .finished: preconditionFailure("completed after the exit")
        }
    }

    /// A file operation failed: the writer exits with the error's code (its description
    /// is the driver's to print).
    package mutating func failed(_ error: TrackFileError) -> Action {
        (phase, batch, next, opening) = (.finished, [], 0, nil)
        return .exit(error.exitCode)
    }

    // MARK: Decisions

    /// The next group of the batch's records that go to one file, or what comes after the batch.
    private mutating func writeNext(now: Int64) -> Action {
        guard next < batch.count else {
            (batch, next, phase) = ([], 0, .waiting)
            guard Double(now - lastSync) >= syncSeconds * 1000 else { return waitForInput() }
            // Decided even when nothing is unsynced (a read of part of a frame), as it always was.
            lastSync = now
            return unsynced ? sync(now: now) : waitForInput()
        }
        let name = names.name(for: batch[next].seconds)
        guard name == file else {
            opening = name
            return file == nil ? .open(name) : .rotate(to: name)
        }
        let first = next
        next += 1
        while next < batch.count, names.name(for: batch[next].seconds) == name { next += 1 }
        unsynced = true
        return .append(batch[first..<next])
    }

    private mutating func sync(now: Int64) -> Action {
        (lastSync, unsynced) = (now, false)
        return .sync
    }

    private func waitForInput() -> Action {
        guard unsynced else { return .wait(until: nil) }
        let (deadline, overflow) = lastSync.addingReportingOverflow(syncMilliseconds)
        return .wait(until: overflow ? .max : deadline)
    }

    private mutating func end() -> Action {
        if unsynced {
            unsynced = false
            return .sync
        }
        if file != nil {
            file = nil
            return .close
        }
        phase = .finished
        return .exit(.success)
    }
}
