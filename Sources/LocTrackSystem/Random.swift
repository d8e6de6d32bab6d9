internal import CGlibcExtras  // getrandom(2) is a GNU extension there (see its shim.h)
import Glibc

/// `count` bytes from the kernel's random source, `getrandom(2)` without flags: it waits
/// only until the pool is first initialised after boot, never afterwards. For names that
/// must differ between runs (`serve`'s event ids), not for keys.
package func randomBytes(_ count: Int) throws(Errno) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
        // A request over 256 bytes may return fewer; a signal may interrupt it.
        filled += try valueOrErrno {
            bytes.withUnsafeMutableBytes { loctrack_random_bytes($0.baseAddress! + filled, UInt(count - filled)) }
        }
    }
    return bytes
}
