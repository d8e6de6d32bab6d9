import Glibc

// What the process learns from its surroundings: environment variables and the host name.

/// The value of the environment variable `name`, or nil when unset. The C function is `getenv(3)`.
package func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// This machine's host name. The C function is `gethostname(2)`.
package func hostName() throws(Errno) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    _ = try valueOrErrno { buffer.withUnsafeMutableBufferPointer { gethostname($0.baseAddress!, $0.count - 1) } }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

/// This user's home directory from the password database, or nil when the database has
/// no entry (or no directory) for the user. The C function is `getpwuid_r(3)` (the
/// reentrant form, as stores may be made on several threads) of `getuid(2)`.
/// - Throws: the error number `getpwuid_r` returned (the database could not be read).
package func passwordDatabaseHome() throws(Errno) -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16 * 1024)
    let status = buffer.withUnsafeMutableBufferPointer { buffer in
        getpwuid_r(getuid(), &entry, buffer.baseAddress!, buffer.count, &found)
    }
    guard status == 0 else { throw Errno(code: status) }
    guard found != nil, let directory = entry.pw_dir else { return nil }
    return String(cString: directory)
}
