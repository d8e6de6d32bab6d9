import Glibc

/// A file descriptor that closes itself: whoever holds it owns the descriptor, and it
/// is closed (`close(2)`) when the value goes away, unless ``close()`` ended the
/// ownership first. Noncopyable, so two owners can never close it twice. Every
/// descriptor loctrack opens is one of these; the wrappers that use a descriptor take
/// its number (``rawValue``), borrowed for the call.
package struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number, for the wrappers that take one.
    package let rawValue: Int32

    /// Takes ownership of `rawValue`.
    package init(owning rawValue: Int32) { self.rawValue = rawValue }

    /// Nothing can be done here about a failed close; a caller who cares about the error a
    /// delayed write may surface calls ``close()``.
    deinit { _ = Glibc.close(rawValue) }

    /// Closes the descriptor now, reporting the error a delayed write may surface here
    /// (NFS, quotas). Not retried on EINTR: Linux releases the descriptor even then, and a
    /// second close could close a descriptor another thread has just been given.
    /// The C function is `close(2)`.
    package consuming func close() throws(Errno) {
        let descriptor = rawValue
        discard self
        guard Glibc.close(descriptor) == 0 else { throw .current }
    }
}

/// An owned descriptor that several holders share (a class, so it can be captured by
/// a thread's body): closed when the last holder lets go.
package final class SharedDescriptor: Sendable {
    private let descriptor: FileDescriptor

    package init(_ descriptor: consuming FileDescriptor) { self.descriptor = descriptor }

    package var rawValue: Int32 { descriptor.rawValue }
}

/// Sets `FD_CLOEXEC` on `descriptor` (`fcntl(2)` with `F_SETFD`): a child started with
/// exec never inherits it.
package func setCloseOnExec(_ descriptor: Int32) throws(Errno) {
    _ = try valueOrErrno { fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
}

/// Adds `O_NONBLOCK` to `descriptor`'s status flags (`fcntl(2)` with `F_GETFL` and `F_SETFL`).
package func setNonBlocking(_ descriptor: Int32) throws(Errno) {
    let flags = try valueOrErrno { fcntl(descriptor, F_GETFL) }
    _ = try valueOrErrno { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
}

/// Whether `descriptor` is a terminal. The C function is `isatty(3)`; its failure (not a
/// terminal, or not open) is the answer "no".
package func isTerminal(_ descriptor: Int32) -> Bool {
    isatty(descriptor) == 1
}

/// The standard descriptors (`STDIN_FILENO`, `STDOUT_FILENO`, `STDERR_FILENO`): the
/// process's, never closed by loctrack, so plain numbers.
package enum StandardDescriptor {
    package static var input: Int32 { STDIN_FILENO }
    package static var output: Int32 { STDOUT_FILENO }
    package static var error: Int32 { STDERR_FILENO }
}
