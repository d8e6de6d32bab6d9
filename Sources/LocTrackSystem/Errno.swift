import Glibc

// The error value every wrapper in LocTrackSystem throws, modelled on swift-system's
// `Errno`: a C error number with Swift names for the codes loctrack tests for, and
// the C library's own text as its description.

/// An `errno` value, printed with the C library's text (`strerror(3)`).
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let code: Int32

    package init(code: Int32) { self.code = code }

    /// The calling thread's `errno`; setting it writes `errno` (libgps reports through it).
    package static var current: Errno {
        get { Errno(code: errno) }
        set { errno = newValue.code }
    }

    /// The C function is `strerror(3)`.
    package var description: String { String(cString: strerror(code)) }

    /// `ENOENT`: no such file or directory.
    package static var noSuchFile: Errno { Errno(code: ENOENT) }
    /// `EEXIST`: the file exists (`O_EXCL`, `mkdir`).
    package static var fileExists: Errno { Errno(code: EEXIST) }
    /// `EACCES`: permission denied.
    package static var permissionDenied: Errno { Errno(code: EACCES) }
    /// `EROFS`: a read-only file system.
    package static var readOnlyFileSystem: Errno { Errno(code: EROFS) }
    /// `EINVAL`: an invalid argument (a directory that cannot be synced, for one).
    package static var invalidArgument: Errno { Errno(code: EINVAL) }
    /// `EAGAIN`, which is `EWOULDBLOCK` on Linux: a non-blocking call would wait,
    /// a non-blocking lock is held, or a timed wait timed out.
    package static var wouldBlock: Errno { Errno(code: EAGAIN) }
    /// `EINTR`: a signal interrupted the call (``valueOrErrno(_:)`` retries it).
    package static var interrupted: Errno { Errno(code: EINTR) }
    /// `EPIPE`: the reader of a pipe or socket went away.
    package static var brokenPipe: Errno { Errno(code: EPIPE) }
    /// `EMFILE`: the process has no descriptor left.
    package static var tooManyOpenFiles: Errno { Errno(code: EMFILE) }

    /// Lets `catch Errno.noSuchFile` match an `Errno` thrown as `any Error`.
    package static func ~= (pattern: Errno, error: any Error) -> Bool {
        (error as? Errno) == pattern
    }
}

/// Runs a C call, again while it fails with EINTR: the one place loctrack retries, and the
/// one place a `-1` and `errno` become a thrown ``Errno`` (swift-system's `valueOrErrno`
/// and `retryOnInterrupt` in one).
/// - Returns: the call's result when it is not negative.
/// - Throws: `errno` when the call returned a negative value for another reason than EINTR.
@inline(__always)
package func valueOrErrno<Result: SignedInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result >= 0 { return result }
        let error = Errno.current
        if error != .interrupted { throw error }
    }
}
