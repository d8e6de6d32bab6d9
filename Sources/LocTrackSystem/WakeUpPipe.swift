import Glibc

/// A self-pipe: a thread sleeping in `poll()` on ``readDescriptor`` is woken by
/// ``wake()`` from any thread. Both ends are non-blocking and close-on-exec;
/// many wakes before the sleeper drains cost one wake-up.
package final class WakeUpPipe: Sendable {
    // Whoever polls the pipe holds a reference, so it outlives every poll() on it;
    // both ends close with it.
    private let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor

    /// The end a sleeper polls for `.readable`.
    package var readDescriptor: Int32 { readEnd.rawValue }

    package init() throws(Errno) {
        let ends = try makePipe(nonBlocking: true)
        readEnd = ends.read
        writeEnd = ends.write
    }

    /// Wakes the sleeper. A full pipe (``Errno/wouldBlock``) already holds a wake-up, and
    /// the ends are this object's own and open while it lives, so a write has nothing else
    /// to fail with: there is nothing to report.
    package func wake() {
        var byte: UInt8 = 1
        _ = try? valueOrErrno { write(writeEnd.rawValue, &byte, 1) }
    }

    /// Empties the pipe, so the next poll() sleeps again: reads until it would block. One
    /// read nearly always does it (a read that does not fill the buffer has taken everything).
    package func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let capacity = MemoryLayout.size(ofValue: bytes)
        while (try? valueOrErrno { withUnsafeMutableBytes(of: &bytes) { read(readEnd.rawValue, $0.baseAddress!, $0.count) } })
            == capacity {}
    }

    /// Sleeps until woken or `milliseconds` pass (-1: until woken); drains what woke it.
    /// - Returns: true when woken, false on timeout.
    /// - Throws: poll(2)'s `Errno` (ENOMEM: the kernel could not allocate its table).
    @discardableResult
    package func wait(milliseconds: Int32) throws(Errno) -> Bool {
        let ready = try pollOne(readDescriptor, events: .readable, milliseconds: milliseconds)
        if !ready.isEmpty { drain() }
        return !ready.isEmpty
    }
}
