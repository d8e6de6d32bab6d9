import Glibc
import LocTrack
import Synchronization

/// Writes accepted lines to stdout from a thread of its own.
///
/// The consumer of fixes only appends to a queue, so it never blocks on a slow
/// or stalled reader of stdout, and the cooperative pool never blocks in
/// `write(2)`. The writer takes everything queued at once: one `write` per
/// fix when fixes trickle in, one `write` for many when they queue up.
///
/// Buffering policy: at most ``maximumQueuedLines`` lines wait. When that many
/// wait, the consumer waits up to ``hiccupSeconds`` for room (a reader of stdout
/// that pauses briefly loses nothing); if stdout stays blocked, loctrack stops
/// waiting and keeps reading gpsd (a gpsd whose client stops reading drops reports
/// silently, and the client would later print stale fixes as current): the
/// **oldest** waiting lines are dropped (a tracker's newest position matters most)
/// until the queue has drained to half, and once output flows again one line on
/// stderr says how many were dropped.
final class OutputWriter: Sendable {
    enum Outcome: Equatable {
        /// Everything accepted was written.
        case written
        /// The reader went away (EPIPE), e.g. `| head -1`.
        case closed
        case failed(Int32)
    }

    static let defaultMaximumQueuedLines = 10_000
    static let hiccupSeconds = 1.0

    let maximumQueuedLines: Int
    private let descriptor: Int32
    private let wake: (read: Int32, write: Int32)
    private let state = Mutex(State())
    private let onClosed: @Sendable () -> Void

    private struct State {
        var queue = RingBufferOfLines()
        var droppedSinceReport = 0
        /// Stdout stayed blocked past the hiccup allowance: drop instead of waiting.
        var dropping = false
        var finishing = false
        var outcome: Outcome?
        var finishWaiter: CheckedContinuation<Outcome, Never>?
    }

    /// - Parameter onClosed: called once, on the writer thread, when stdout's reader goes away or a write fails.
    init(descriptor: Int32 = STDOUT_FILENO, maximumQueuedLines: Int = defaultMaximumQueuedLines,
         onClosed: @escaping @Sendable () -> Void) {
        var pipeDescriptors: [Int32] = [-1, -1]
        if pipe(&pipeDescriptors) != 0 { pipeDescriptors = [-1, -1] }
        self.wake = (pipeDescriptors[0], pipeDescriptors[1])
        self.descriptor = descriptor
        self.maximumQueuedLines = max(1, maximumQueuedLines)
        self.onClosed = onClosed
        startThread()
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Queues a line; while the queue is full, first waits up to ``hiccupSeconds``
    /// (once per blockage). Returns false once the output is closed or failed.
    func enqueueAllowingHiccups(_ line: String) async -> Bool {
        var waited = 0.0
        while state.withLock({ !$0.dropping && $0.queue.count >= maximumQueuedLines }) {
            if waited >= Self.hiccupSeconds {
                state.withLock { $0.dropping = true }
                break
            }
            try? await Task.sleep(for: .milliseconds(5))
            waited += 0.005
        }
        return enqueue(line)
    }

    /// Queues a line without waiting. Returns false once the output is closed or failed.
    @discardableResult
    func enqueue(_ line: String) -> Bool {
        let (accepted, wasEmpty) = state.withLock { state -> (Bool, Bool) in
            guard state.outcome == nil, !state.finishing else { return (false, false) }
            let wasEmpty = state.queue.isEmpty
            state.queue.append(line)
            if state.queue.count > maximumQueuedLines {
                state.queue.removeFirst()
                state.droppedSinceReport += 1
            }
            return (true, wasEmpty)
        }
        if accepted && wasEmpty { poke() }
        return accepted
    }

    /// Writes everything queued, then stops the writer. Returns how output ended.
    func finish() async -> Outcome {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Outcome? in
                state.finishing = true
                if let outcome = state.outcome { return outcome }
                state.finishWaiter = continuation
                return nil
            }
            if let done {
                continuation.resume(returning: done)
            } else {
                poke()
            }
        }
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func startThread() {
        let status = startDetachedThread { [self] in runWriterLoop() }
        if status != 0 { end(with: .failed(status)) }
    }

    private func runWriterLoop() {
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let (batch, dropped, finishing) = state.withLock { state -> ([String], Int, Bool) in
                defer {
                    state.droppedSinceReport = 0
                    state.dropping = false  // the queue drains now: wait again at the next blockage
                }
                return (state.queue.removeAll(), state.droppedSinceReport, state.finishing)
            }
            if dropped > 0 {
                writeToStandardError("loctrack: output was blocked: dropped the \(dropped) oldest fixes waiting to be written (at most \(maximumQueuedLines) wait)\n")
            }
            if !batch.isEmpty {
                var text = batch.count == 1 ? batch[0] : batch.joined()
                if let failure = writeAll(&text) {
                    end(with: failure)
                    onClosed()
                    return
                }
                continue  // more may have queued while writing
            }
            if finishing {
                end(with: .written)
                return
            }
            // Sleep until a line is queued or finish() is called.
            _ = drain.withUnsafeMutableBytes { read(wake.read, $0.baseAddress!, $0.count) }
        }
    }

    private func writeAll(_ text: inout String) -> Outcome? {
        text.withUTF8 { bytes -> Outcome? in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno == EPIPE ? .closed : .failed(errno)
                }
                offset += written
            }
            return nil
        }
    }

    private func end(with outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            state.outcome = outcome
            state.queue.removeAllAndDiscard()
            defer { state.finishWaiter = nil }
            return state.finishWaiter
        }
        waiter?.resume(returning: outcome)
    }
}

/// A FIFO of lines with O(1) append and removal of the oldest.
struct RingBufferOfLines {
    private var storage: [String] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ line: String) {
        storage.append(line)
    }

    mutating func removeFirst() {
        head += 1
        if head >= 1024 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Everything queued, oldest first; the queue is empty afterwards.
    mutating func removeAll() -> [String] {
        defer {
            storage.removeAll(keepingCapacity: storage.capacity <= 4096)
            head = 0
        }
        return head == 0 ? storage : Array(storage[head...])
    }

    mutating func removeAllAndDiscard() {
        storage = []
        head = 0
    }
}

func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        _ = write(STDERR_FILENO, bytes.baseAddress!, bytes.count)
    }
}
