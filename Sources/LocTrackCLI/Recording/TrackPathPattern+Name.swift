import Glibc

extension TrackPathPattern {
    /// The file name for a record at `seconds` since 1970 (UTC): the pattern with its
    /// `strftime` fields filled in.
    func fileName(utcSeconds seconds: Int64) -> String {
        guard rotates || text.contains("%") else { return text }
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return text }
        // strftime returns 0 both for "too small" and for an empty result: grow until it fits.
        var capacity = max(256, text.utf8.count * 4)
        while capacity <= 1 << 16 {
            var buffer = [CChar](repeating: 0, count: capacity)
            let count = strftime(&buffer, capacity, text, &parts)
            if count > 0 { return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            capacity *= 4
        }
        return text
    }
}
