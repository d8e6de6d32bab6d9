package import LocTrack

/// The bytes of one batch of output lines, built without Strings.
///
/// A flood of fixes spends most of its formatting time in String's append
/// machinery (capacity checks, UTF-8 validation, a String per number); the line
/// formats that a flood uses (json, geojson) write their bytes here instead, one
/// buffer per batch, which ``OutputWriter`` writes with one `write`.
package struct OutputBytes {
    private(set) package var bytes: [UInt8] = []

    package var count: Int { bytes.count }

    package init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its memory for the next record.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// The bytes without the final newline, if there is one: a line as a message.
    package var bytesWithoutLineEnd: [UInt8] {
        bytes.last == 0x0A ? Array(bytes.dropLast()) : bytes
    }

    package mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func append(_ text: String) {
        // A native String's UTF-8 is contiguous: one copy instead of a generic append.
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// `text` as the inside of a JSON string literal (``JSONText/escaped(_:)``). Text that
    /// needs no escaping (a device path) is copied straight from its UTF-8: one pass and
    /// one copy, no String in between (this runs for every fix's device).
    package mutating func appendJSONEscaped(_ text: String) {
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            for byte in utf8 where byte == 0x22 || byte == 0x5C || byte < 0x20 { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied != true { append(JSONText.escaped(text)) }
    }

    package mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// Replaces bytes already appended (a length known only once what follows is written).
    package mutating func overwrite(at offset: Int, with replacement: [UInt8]) {
        bytes.replaceSubrange(offset..<(offset + replacement.count), with: replacement)
    }

    /// A non-negative integer in decimal, at least `width` digits (zero-padded, at most 20).
    package mutating func append(_ value: UInt64, width: Int = 1) {
        // Digits are written backwards into a small buffer and appended with one copy:
        // generic appends (repeatElement, slices) cost more than the digits themselves.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            while digits.count - index < width && index > 0 {
                index -= 1
                digits[index] = 0x30
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    package mutating func append(_ value: Int) {
        if value < 0 { append(byte: 0x2D) }
        append(UInt64(value.magnitude))
    }

    /// A time as gpsd writes it, `2026-11-22T04:25:03.240Z` (``Timestamp/iso8601``).
    package mutating func append(_ time: Timestamp) {
        let fields = time.utcFields
        guard fields.year >= 0 else { return append(time.iso8601) }
        append(UInt64(fields.year), width: 4)
        append(byte: 0x2D)
        append(UInt64(fields.month), width: 2)
        append(byte: 0x2D)
        append(UInt64(fields.day), width: 2)
        append(byte: 0x54)
        append(UInt64(fields.hour), width: 2)
        append(byte: 0x3A)
        append(UInt64(fields.minute), width: 2)
        append(byte: 0x3A)
        append(UInt64(fields.second), width: 2)
        append(byte: 0x2E)
        append(UInt64(fields.millisecond), width: 3)
        append(byte: 0x5A)
    }

    /// `value` with exactly `decimals` digits after the point, as printf's `%.*f` writes it.
    package mutating func appendFixed(_ value: Double, decimals: Int) {
        guard let parts = FixedPoint.parts(of: value, decimals: decimals) else {
            append(FixedPoint.printf(value, decimals: decimals))
            return
        }
        if parts.isNegative { append(byte: 0x2D) }
        append(parts.integer)
        guard decimals > 0 else { return }
        append(byte: 0x2E)
        append(parts.fraction, width: decimals)
    }
}
