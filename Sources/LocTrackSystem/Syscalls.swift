import Glibc

// Thin wrappers over the system calls loctrack makes, in one place: EINTR is
// retried here and nowhere else, and failures come back as small `Errno` values.
// Used by the library's reader and by the CLI's writer and signal threads.

/// An `errno` value, printed with the C library's text.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let code: Int32

    package init(code: Int32) { self.code = code }

    /// The calling thread's current `errno`.
    package static var current: Errno { Errno(code: errno) }

    package var description: String { String(cString: strerror(code)) }
}

/// Retries a system call that failed with EINTR: the one place loctrack does so.
@inline(__always)
package func retryingInterrupts<Result: SignedInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

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

/// Waits up to `milliseconds` (-1: forever) for `events` on `descriptor`.
/// - Returns: the returned events, 0 on timeout, or nil when poll failed.
package func pollOne(_ descriptor: Int32, events: Int16, milliseconds: Int32) -> Int16? {
    var entry = pollfd(fd: descriptor, events: events, revents: 0)
    let ready = retryingInterrupts { poll(&entry, 1, milliseconds) }
    if ready < 0 { return nil }
    return ready == 0 ? 0 : entry.revents
}

/// Milliseconds on the monotonic clock, for the reader's deadlines.
package enum Monotonic {
    private static let origin = ContinuousClock.now

    package static var milliseconds: Int64 { (ContinuousClock.now - origin).milliseconds }
}

extension Duration {
    /// Whole milliseconds (truncated): the unit of poll(2) timeouts.
    package var milliseconds: Int64 {
        let parts = components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }

    /// Whole and fractional seconds, for messages.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
