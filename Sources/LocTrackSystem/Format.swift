import Glibc

/// `value` with exactly `decimals` digits after the point, as the C library's printf
/// writes `%.*f` (it rounds the exact binary value). The C function is `vsnprintf(3)`.
package func formatFixed(_ value: Double, decimals: Int) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 350) { buffer in
        let count = withVaList([Int32(decimals), value]) { arguments in
            vsnprintf(buffer.baseAddress!, 350, "%.*f", arguments)
        }
        let bytes = UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(min(max(count, 0), 349)))
        return String(decoding: bytes, as: UTF8.self)
    }
}
