import Glibc

// Thin wrappers over read(2) and write(2), in the style of swift-system's
// Syscalls.swift. The rest of LocTrackSystem is grouped by subject: Files, Descriptor,
// Pipe, Poll, Thread, Signals, Process, Semaphore, Environment, Time, Memory, Math.

/// Writes all of `bytes` to `descriptor`, however many calls it takes.
/// The C function is `write(2)`, retried on EINTR.
/// - Throws: the failing call's `Errno`; what came before it was written.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
    guard var next = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
        let written = try valueOrErrno { write(descriptor, next, remaining) }
        next += written
        remaining -= written
    }
}

/// Writes all of `bytes` to `descriptor` (see ``writeAll(_:_:)-(_,UnsafeRawBufferPointer)``).
package func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(Errno) {
    var written = 0
    while written < bytes.count {
        written += try valueOrErrno { bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) } }
    }
}

/// Writes all of `text` to `descriptor` (see ``writeAll(_:_:)-(_,UnsafeRawBufferPointer)``).
package func writeAll(_ descriptor: Int32, _ text: String) throws(Errno) {
    try writeAll(descriptor, Array(text.utf8))
}

/// One `read(2)` of up to `count` bytes into `buffer`, retried on EINTR.
/// - Returns: the bytes read, 0 at end of file.
/// - Throws: ``Errno/wouldBlock`` when a non-blocking descriptor has nothing yet.
package func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) throws(Errno) -> Int {
    try valueOrErrno { read(descriptor, buffer, count) }
}

/// One `read(2)` into `buffer`, from its start, of up to its size, retried on EINTR.
/// - Returns: the bytes read, 0 at end of file.
/// - Throws: ``Errno/wouldBlock`` when a non-blocking descriptor has nothing yet.
package func systemRead(_ descriptor: Int32, into buffer: inout [UInt8]) throws(Errno) -> Int {
    try valueOrErrno { buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
}

/// One `write(2)` of as many of `bytes` as the descriptor takes, retried on EINTR.
/// - Returns: the bytes written.
/// - Throws: ``Errno/wouldBlock`` when a non-blocking descriptor takes nothing now.
package func systemWrite(_ descriptor: Int32, _ bytes: [UInt8]) throws(Errno) -> Int {
    try valueOrErrno { bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } }
}

/// One `write(2)` of up to `count` bytes from `buffer`, retried on EINTR.
/// - Returns: the bytes written.
/// - Throws: ``Errno/wouldBlock`` when a non-blocking descriptor takes nothing now.
package func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) throws(Errno) -> Int {
    try valueOrErrno { write(descriptor, buffer, count) }
}
