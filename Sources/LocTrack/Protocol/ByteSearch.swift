import LocTrackSystem

/// Finding a key in a raw report line without parsing it.
enum ByteSearch {
    /// Where the bytes just after the first occurrence of `needle` start, if it occurs.
    ///
    /// Candidates are found with `memchr` (vectorised in glibc) on the needle's first
    /// byte, so a line with few of them costs little more than one pass of memchr:
    /// this runs on every TPV in the reader thread.
    static func offset(after needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count, let base = bytes.baseAddress else { return nil }
        let lastStart = bytes.count - needle.count
        var index = 0
        while index <= lastStart {
            guard let found = findByte(base + index, Int32(first), lastStart - index + 1) else { return nil }
            let candidate = base.distance(to: UnsafeRawPointer(found))
            if bytesEqual(base + candidate, needle, needle.count) { return candidate + needle.count }
            index = candidate + 1
        }
        return nil
    }
}
