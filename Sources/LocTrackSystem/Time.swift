internal import CGlibcExtras  // where Swift files struct timespec (see its shim.h)
import Glibc

// Clocks and calendar time: the monotonic clock of the reader's deadlines, the wall
// clock's seconds (time(2)), strftime(3) of a UTC time, and the local time zone's offset
// (localtime_r(3)), where serve's day starts.

/// Milliseconds on the monotonic clock, for the reader's deadlines, counted from the
/// first use in the process.
///
/// The clock is `ContinuousClock`'s (`CLOCK_BOOTTIME`: it runs on while the machine
/// sleeps), read with `clock_gettime(2)` and counted in plain 64-bit integers: the reader
/// reads it several times per fix, and `Duration`'s 128-bit arithmetic brought about 20
/// lines of code of its own into every 1 Hz wake-up (docs/performance.md).
package enum Monotonic {
    private static let origin = nanosecondsSinceBoot

    package static var milliseconds: Int64 { (nanosecondsSinceBoot - origin) / 1_000_000 }

    private static var nanosecondsSinceBoot: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
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

/// Whole seconds since 1970 on the wall clock. The C function is `time(2)`.
package func wallClockSeconds() -> Int64 {
    Int64(time(nil))
}

/// `format` with its `strftime(3)` fields filled in for `seconds` since 1970, in UTC
/// (`gmtime_r(3)`).
/// - Throws: ``Errno`` EOVERFLOW when the time cannot be broken down (gmtime_r's own
///   error), ERANGE when the result does not fit in 64 KiB or is empty (strftime cannot
///   tell an empty result from "too small").
package func formatUTC(_ format: String, seconds: Int64) throws(Errno) -> String {
    var time = time_t(seconds)
    var parts = tm()
    guard gmtime_r(&time, &parts) != nil else { throw .current }
    // strftime returns 0 both for "too small" and for an empty result: grow until it fits.
    var capacity = max(256, format.utf8.count * 4)
    while capacity <= 1 << 16 {
        var buffer = [CChar](repeating: 0, count: capacity)
        let count = strftime(&buffer, capacity, format, &parts)
        if count > 0 { return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        capacity *= 4
    }
    throw Errno(code: ERANGE)
}

/// The local time zone's offset from UTC in seconds (east of Greenwich positive) at
/// `seconds` since 1970: `tm_gmtoff` of `localtime_r(3)`, after `tzset(3)` (so `TZ`, else
/// /etc/localtime, as it is now). 0 when the time cannot be broken down.
package func localUTCOffset(atSeconds seconds: Int64) -> Int64 {
    tzset()
    var time = time_t(seconds)
    var parts = tm()
    guard localtime_r(&time, &parts) != nil else { return 0 }
    return Int64(parts.tm_gmtoff)
}
