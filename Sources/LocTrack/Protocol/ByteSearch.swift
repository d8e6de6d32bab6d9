/// Finding a key in a raw report line without parsing it.
enum ByteSearch {
    /// Where the bytes just after the first occurrence of `needle` start, if it occurs.
    static func offset(after needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
        var index = 0
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) {
                return index + needle.count
            }
            index += 1
        }
        return nil
    }
}
