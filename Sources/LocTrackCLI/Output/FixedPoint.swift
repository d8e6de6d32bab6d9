import Glibc

extension String {
    /// Appends `value` with exactly `decimals` digits after the point, rounded as
    /// C's printf does (gpsd formats its JSON with printf, so values read from
    /// gpsd come back digit for digit).
    mutating func appendFixed(_ value: Double, decimals: Int) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer in
            let count = withVaList([Int32(decimals), value]) { arguments in
                vsnprintf(buffer.baseAddress!, 48, "%.*f", arguments)
            }
            let bytes = UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(min(max(count, 0), 47)))
            append(String(decoding: bytes, as: UTF8.self))
        }
    }
}
