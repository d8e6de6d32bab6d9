import LocTrack
import Synchronization
import LocTrackSystem
import LocTrackFormats

/// Writes accepted lines to stdout without ever making the consumer of fixes wait on it.
///
/// The consumer hands over each batch's text as one chunk. When nothing waits and
/// stdout can take a small chunk at once (`poll` says writable and it is at most
/// `PIPE_BUF` bytes, which a pipe takes whole), the consumer writes it itself: one
/// `write` per batch and no other thread woken. Otherwise the chunk queues for a
/// writer thread of its own, which writes everything queued with one `write`, so
/// a slow or stalled reader of stdout never blocks the consumer or the cooperative pool.
///
/// Buffering policy: at most ``maximumQueuedBytes`` of output wait (256 KiB: about
/// 600 JSON lines, a minute of a 10 Hz receiver; a byte bound, so memory does not
/// depend on the format's line length). When that much waits, a consumer that may wait
/// (``enqueueWaitingForRoom(_:lines:events:)``: the sink is alone) suspends, on a
/// continuation the writer thread resumes once the chunk fits, for up to
/// ``hiccupSeconds`` (a reader of stdout that pauses briefly loses nothing); if stdout
/// stays blocked, loctrack stops waiting and keeps reading gpsd (a gpsd whose client stops reading drops reports
/// silently, and the client would later print stale fixes as current): the
/// **oldest** waiting lines are dropped (a tracker's newest position matters most)
/// until the queue has drained, and once output flows again one line on
/// stderr says how many were dropped.
///
/// The writer thread, `loctrack-write`, is this object's: it holds the writer only weakly
/// between wake-ups, ends when ``finishWriting()`` has written everything (which then
/// joins it), and a writer released without finishing stops and joins it in `deinit`. A
/// descriptor handed over as owned (the track writer's pipe) closes once the thread is gone.
package final class OutputWriter: Sendable {
    enum Outcome: Equatable {
        /// Everything accepted was written.
        case written
        /// The reader went away (EPIPE), e.g. `| head -1`.
        case closed
        case failed(Int32)
    }

    static let defaultMaximumQueuedBytes = 256 << 10
    static let hiccupSeconds = 1.0

    let maximumQueuedBytes: Int
    private let descriptor: Int32
    /// The descriptor when it is the writer's own, closed after the thread has ended.
    private let owned = Mutex<FileDescriptor?>(nil)
    private let wakeUps: WakeUpPipe?
    private let state = Mutex(State())
    private let onClosed: @Sendable () -> Void
    private let thread = ThreadOwner()

    private struct Chunk {
        let bytes: [UInt8]
        /// Records (lines, frames): what a drop reports.
        let lines: Int
        /// Events of the batches this chunk came from: what it settles once written.
        let events: Int
    }

    /// A consumer suspended until a chunk of `bytes` fits.
    private struct RoomWaiter {
        let continuation: CheckedContinuation<Void, Never>
        let bytes: Int
        /// Which wait this is: a timer expires its own wait only, never a later one.
        let wait: UInt64
    }

    private struct State {
        var queue: [Chunk] = []
        var queueHead = 0
        var queuedBytes = 0
        var droppedSinceReport = 0
        /// Stdout stayed blocked past the hiccup allowance: drop instead of waiting.
        var dropping = false
        /// Someone (the writer thread, or the consumer's direct write) is writing.
        var writing = false
        var finishing = false
        var outcome: Outcome?
        var finishWaiter: CheckedContinuation<Outcome, Never>?
        var roomWaiter: RoomWaiter?
        var waits: UInt64 = 0
        /// Events written, or dropped by the buffering policy: done with, either way.
        var settledEvents = 0

        var isEmpty: Bool { queueHead == queue.count }

        /// Whether a chunk of `bytes` may be queued without waiting: it fits, or nothing
        /// waits (a chunk bigger than the whole allowance is taken once the queue is empty),
        /// or stdout stayed blocked past the allowance, or output has ended.
        func hasRoom(for bytes: Int, limit: Int) -> Bool {
            dropping || outcome != nil || finishing || queuedBytes == 0 || queuedBytes + bytes <= limit
        }

        /// The suspended consumer, when it may go on now.
        mutating func takeRoomWaiter(limit: Int) -> CheckedContinuation<Void, Never>? {
            guard let waiter = roomWaiter, hasRoom(for: waiter.bytes, limit: limit) else { return nil }
            roomWaiter = nil
            return waiter.continuation
        }

        mutating func takeAll() -> [Chunk] {
            defer {
                queue.removeAll(keepingCapacity: queue.capacity <= 4096)
                queueHead = 0
                queuedBytes = 0
            }
            return Array(queue[queueHead...])
        }

        mutating func dropOldest(toFit limit: Int) {
            while queuedBytes > limit, queueHead < queue.count - 1 {  // the newest chunk stays
                queuedBytes -= queue[queueHead].bytes.count
                droppedSinceReport += queue[queueHead].lines
                settledEvents += queue[queueHead].events
                queue[queueHead] = Chunk(bytes: [], lines: 0, events: 0)
                queueHead += 1
            }
        }
    }

    /// Writes to `descriptor` (stdout by default), which stays the caller's: it must stay
    /// open while the writer lives.
    /// - Parameter onClosed: called once when stdout's reader goes away or a write fails.
    convenience init(descriptor: Int32 = StandardDescriptor.output, maximumQueuedBytes: Int = defaultMaximumQueuedBytes,
                     onClosed: @escaping @Sendable () -> Void) {
        self.init(descriptor: descriptor, owned: nil, maximumQueuedBytes: maximumQueuedBytes, onClosed: onClosed)
    }

    /// Writes to `descriptor`, which is the writer's from now on: closed once everything is
    /// written (``finishWriting()``) or the writer goes.
    convenience init(owning descriptor: consuming FileDescriptor, maximumQueuedBytes: Int = defaultMaximumQueuedBytes,
                     onClosed: @escaping @Sendable () -> Void) {
        let number = descriptor.rawValue
        self.init(descriptor: number, owned: descriptor, maximumQueuedBytes: maximumQueuedBytes, onClosed: onClosed)
    }

    private init(descriptor: Int32, owned: consuming FileDescriptor?, maximumQueuedBytes: Int,
                 onClosed: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        self.maximumQueuedBytes = max(1, maximumQueuedBytes)
        self.onClosed = onClosed
        var ownedDescriptor = owned
        self.owned.withLock { $0 = ownedDescriptor.take() }
        let wakeUps: WakeUpPipe
        do throws(Errno) {
            wakeUps = try WakeUpPipe()
        } catch {
            self.wakeUps = nil
            end(with: .failed(error.code))
            return
        }
        self.wakeUps = wakeUps
        do throws(Errno) {
            // Weakly: the thread keeps the writer only while it writes, so a writer nobody
            // holds is deinitialised, and its deinit ends the thread.
            try thread.start(named: "loctrack-write") { [weak self] in
                Self.runWriterLoop(writer: { self }, wakeUps)
            }
        } catch {
            end(with: .failed(error.code))
        }
    }

    /// Stops the thread (``runWriterLoop(writer:_:)`` finds no writer, or an outcome) and
    /// joins it; the owned descriptor closes after this, with its property.
    deinit {
        wakeUps?.wake()
        thread.join()
    }

    /// Queues `bytes` (`lines` records from batches of `events` events); while the queue
    /// is full, first suspends until the writer thread has made room, for up to
    /// ``hiccupSeconds`` (once per blockage: then the oldest are dropped instead).
    /// Dropping older output to make room is for a stalled reader only, never for a batch
    /// that merely arrived while the writer was busy.
    /// - Returns: false once the output is closed or failed.
    func enqueueWaitingForRoom(_ bytes: [UInt8], lines: Int, events: Int) async -> Bool {
        if !state.withLock({ $0.hasRoom(for: bytes.count, limit: maximumQueuedBytes) }) {
            await waitForRoom(bytes.count)
        }
        return enqueue(bytes, lines: lines, events: events)
    }

    /// Suspends until a chunk of `bytes` fits (the writer thread resumes it) or
    /// ``hiccupSeconds`` have passed (a timer resumes it and the queue starts dropping).
    private func waitForRoom(_ bytes: Int) async {
        let limit = maximumQueuedBytes
        let wait = state.withLock { state in
            state.waits += 1
            return state.waits
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(Self.hiccupSeconds))
            let expired = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.roomWaiter, waiter.wait == wait else { return nil }
                state.roomWaiter = nil
                state.dropping = true
                return waiter.continuation
            }
            expired?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.hasRoom(for: bytes, limit: limit) { return true }
                state.roomWaiter = RoomWaiter(continuation: continuation, bytes: bytes, wait: wait)
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }

    /// Writes `text` now if stdout takes it at once, else queues it. Never waits.
    @discardableResult
    func enqueue(_ text: String, lines: Int = 1) -> Bool {
        enqueue(Array(text.utf8), lines: lines, events: 0)
    }

    /// Writes `bytes` now if stdout takes them at once, else queues them. Never waits.
    /// An empty chunk settles its `events` after what is queued before it.
    /// - Returns: false once the output is closed or failed.
    @discardableResult
    func enqueue(_ bytes: [UInt8], lines: Int, events: Int) -> Bool {
        enum Plan { case refuse, settled, writeDirectly, queued(wake: Bool) }
        let plan = state.withLock { state -> Plan in
            guard state.outcome == nil, !state.finishing else { return .refuse }
            if bytes.isEmpty, state.isEmpty, !state.writing {
                state.settledEvents += events
                return .settled
            }
            if state.isEmpty && !state.writing && bytes.count <= pipeAtomicWriteSize {
                state.writing = true
                return .writeDirectly
            }
            state.queue.append(Chunk(bytes: bytes, lines: lines, events: events))
            state.queuedBytes += bytes.count
            state.dropOldest(toFit: maximumQueuedBytes)
            return .queued(wake: !state.writing)
        }
        switch plan {
        case .refuse:
            return false
        case .settled:
            return true
        case .queued(let wake):
            if wake { wakeUps?.wake() }
            return true
        case .writeDirectly:
            return writeDirectly(bytes, lines: lines, events: events)
        }
    }

    /// The consumer's own write: one `write` when stdout can take the chunk without waiting.
    private func writeDirectly(_ bytes: [UInt8], lines: Int, events: Int) -> Bool {
        var written = 0
        do throws(Errno) {
            // A failed poll is a "not now": the writer thread then waits for stdout.
            if (try? pollOne(descriptor, events: .writable, milliseconds: 0))?.contains(.writable) == true {
                written = try systemWrite(descriptor, bytes)
            }
        } catch where error != .wouldBlock {
            end(with: error == .brokenPipe ? .closed : .failed(error.code))
            onClosed()
            return false
        } catch {
            // Would block after all: the writer thread waits for stdout.
        }
        let rest = written == 0 ? bytes : Array(bytes[written...])
        state.withLock { state in
            state.writing = false
            if rest.isEmpty { state.settledEvents += events }
            if !rest.isEmpty {  // stdout could not take it all at once: the writer thread waits for it
                state.queue.insert(Chunk(bytes: rest, lines: lines, events: events), at: state.queueHead)
                state.queuedBytes += rest.count
            }
        }
        if !rest.isEmpty { wakeUps?.wake() }
        return true
    }

    /// How many of the events handed over are written (or dropped by the buffering policy,
    /// which says so on stderr): what a reader of the output has had.
    var settledEvents: Int { state.withLock { $0.settledEvents } }

    /// Writes everything queued, then stops the writer: its thread has ended and its own
    /// descriptor is closed when this returns. Returns how output ended.
    func finishWriting() async -> Outcome {
        let outcome = await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Outcome? in
                state.finishing = true
                if let outcome = state.outcome { return outcome }
                state.finishWaiter = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
            // Also when output already ended (a direct write failed): the thread, asleep,
            // must see it and end.
            wakeUps?.wake()
        }
        thread.join()
        if let descriptor = owned.withLock({ $0.take() }) { try? descriptor.close() }  // a pipe: nothing to learn from its close
        return outcome
    }

    /// The thread: writes what is queued, sleeps until woken, until output has ended or
    /// the writer is gone. `writer` gives the writer for one round, never across a sleep.
    private static func runWriterLoop(writer: () -> OutputWriter?, _ wakeUps: WakeUpPipe) {
        while let writer = writer(), writer.writeQueued() {
            _ = consume writer
            // A failed poll (ENOMEM) goes round again, and finds nothing new or something.
            _ = try? wakeUps.wait(milliseconds: -1)  // until a chunk is queued, finish() is called or the writer goes
        }
    }

    /// Writes everything queued, as one `write`, until the queue is empty.
    /// - Returns: whether the thread sleeps next (false: it ends).
    private func writeQueued() -> Bool {
        while true {
            let (batch, dropped, finishing, roomMade) = state.withLock { state in
                if state.outcome != nil { return ([Chunk](), 0, true, CheckedContinuation<Void, Never>?.none) }  // output ended
                if state.writing { return ([Chunk](), 0, false, CheckedContinuation<Void, Never>?.none) }  // the consumer writes directly
                let batch = state.takeAll()
                let dropped = state.droppedSinceReport
                state.droppedSinceReport = 0
                state.dropping = false  // the queue drains now: wait again at the next blockage
                state.writing = !batch.isEmpty
                return (batch, dropped, state.finishing, state.takeRoomWaiter(limit: maximumQueuedBytes))
            }
            roomMade?.resume()  // the queue is empty again: a suspended consumer may go on
            if dropped > 0 {
                writeToStandardError("loctrack: output was blocked: dropped the \(dropped) oldest fixes waiting to be written (at most \(maximumQueuedBytes / 1024) KiB wait)\n")
            }
            if !batch.isEmpty {
                let bytes = batch.count == 1 ? batch[0].bytes : Array(batch.map(\.bytes).joined())
                var failure: Errno?
                do throws(Errno) { try writeAll(descriptor, bytes) } catch { failure = error }
                let events = failure == nil ? batch.reduce(0) { $0 + $1.events } : 0
                let resume = state.withLock { state in
                    state.writing = false
                    state.settledEvents += events
                    return state.takeRoomWaiter(limit: maximumQueuedBytes)
                }
                resume?.resume()
                if let failure {
                    end(with: failure == .brokenPipe ? .closed : .failed(failure.code))
                    onClosed()
                    return false
                }
                continue  // more may have queued while writing
            }
            if finishing {
                if state.withLock({ $0.outcome == nil }) { end(with: .written) }
                return false
            }
            return true
        }
    }

    private func end(with outcome: Outcome) {
        let (waiter, roomWaiter) = state.withLock { state in
            state.outcome = outcome
            _ = state.takeAll()
            defer { state.finishWaiter = nil }
            return (state.finishWaiter, state.takeRoomWaiter(limit: maximumQueuedBytes))
        }
        roomWaiter?.resume()
        waiter?.resume(returning: outcome)
    }
}
