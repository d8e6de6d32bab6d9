import Glibc

// What the process learns from its surroundings: environment variables and the host name.

/// The value of the environment variable `name`, or nil when unset. The C function is `getenv(3)`.
package func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// This machine's host name, or nil when it cannot be read. The C function is `gethostname(2)`.
package func hostName() -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    return buffer.withUnsafeMutableBufferPointer { buffer -> String? in
        guard gethostname(buffer.baseAddress!, buffer.count - 1) == 0 else { return nil }
        return String(cString: buffer.baseAddress!)
    }
}

/// This user's home directory from the password database, or nil. The C function is
/// `getpwuid_r(3)` (the reentrant form, as stores may be made on several threads) of
/// `getuid(2)`.
package func passwordDatabaseHome() -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16 * 1024)
    return buffer.withUnsafeMutableBufferPointer { buffer in
        guard let start = buffer.baseAddress, getpwuid_r(getuid(), &entry, start, buffer.count, &found) == 0, found != nil,
              let directory = entry.pw_dir else { return nil }
        return String(cString: directory)
    }
}
