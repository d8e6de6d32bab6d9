import Glibc

/// A self-pipe: a thread sleeping in `poll()` on ``readDescriptor`` is woken by
/// ``wake()`` from any thread. Both ends are non-blocking and close-on-exec;
/// many wakes before the sleeper drains cost one wake-up.
package final class WakeUpPipe: Sendable {
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    package init() throws(Errno) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw .current }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    // Whoever polls the pipe holds a reference, so it outlives every poll() on it.
    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Wakes the sleeper (a full pipe already holds a wake-up: nothing is lost).
    package func wake() {
        var byte: UInt8 = 1
        _ = retryingInterrupts { write(writeDescriptor, &byte, 1) }
    }

    /// Empties the pipe, so the next poll() sleeps again. One read nearly always
    /// does it (a read that does not fill the buffer has taken everything).
    package func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let capacity = MemoryLayout.size(ofValue: bytes)
        while withUnsafeMutableBytes(of: &bytes, { read(readDescriptor, $0.baseAddress!, $0.count) }) == capacity {}
    }

    /// Sleeps until woken or `milliseconds` pass (-1: until woken); drains what woke it.
    /// - Returns: true when woken, false on timeout.
    @discardableResult
    package func wait(milliseconds: Int32) -> Bool {
        let ready = pollOne(readDescriptor, events: Int16(POLLIN), milliseconds: milliseconds) ?? 0
        if ready != 0 { drain() }
        return ready != 0
    }
}
