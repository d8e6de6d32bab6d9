import Glibc

// Thin wrappers over read(2) and write(2), in the style of swift-system's
// Syscalls.swift. The rest of LocTrackSystem is grouped by subject: Files, Descriptor,
// Pipe, Poll, Thread, Signals, Process, Semaphore, Environment, Time, Memory, Math.

/// Writes all of `bytes` to `descriptor`, however many calls it takes.
/// - Returns: nil when everything was written, else the failing call's errno.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Errno? {
    guard var next = bytes.baseAddress else { return nil }
    var remaining = bytes.count
    while remaining > 0 {
        let written = retryingInterrupts { write(descriptor, next, remaining) }
        if written < 0 { return .current }
        next += written
        remaining -= written
    }
    return nil
}

/// Writes all of `text` to `descriptor` (see ``writeAll(_:_:)-(_,UnsafeRawBufferPointer)``).
package func writeAll(_ descriptor: Int32, _ text: String) -> Errno? {
    var text = text
    return text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
}

/// One `read(2)` of up to `count` bytes into `buffer`, retried on EINTR.
/// - Returns: the bytes read, 0 at end of file, or -1 with ``Errno/current`` set.
package func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    retryingInterrupts { read(descriptor, buffer, count) }
}

/// One `write(2)` of up to `count` bytes from `buffer`, retried on EINTR.
/// - Returns: the bytes written, or -1 with ``Errno/current`` set.
package func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    retryingInterrupts { write(descriptor, buffer, count) }
}
