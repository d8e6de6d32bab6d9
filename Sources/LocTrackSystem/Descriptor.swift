import Glibc

/// A file descriptor that closes itself: whoever holds it owns the descriptor, and it
/// is closed (`close(2)`) when the value goes away, unless ``close()`` or ``release()``
/// ended the ownership first. Noncopyable, so two owners can never close it twice.
package struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number, for the wrappers that take one.
    package let rawValue: Int32

    /// Takes ownership of `rawValue`.
    package init(owning rawValue: Int32) { self.rawValue = rawValue }

    deinit { _ = Glibc.close(rawValue) }

    /// Closes the descriptor now, reporting the error a delayed write may surface here.
    /// Not retried on EINTR (Linux releases the descriptor even then). The C function
    /// is `close(2)`.
    package consuming func close() throws(Errno) {
        let descriptor = rawValue
        discard self
        guard Glibc.close(descriptor) == 0 else { throw .current }
    }

    /// Gives up ownership without closing: the caller closes the number returned.
    package consuming func release() -> Int32 {
        let descriptor = rawValue
        discard self
        return descriptor
    }
}

/// Closes `descriptor`, ignoring the result, for the paths where nothing can be done
/// about a failed close (error paths, read-only descriptors). The C function is `close(2)`.
package func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// Sets `FD_CLOEXEC` on `descriptor` (`fcntl(2)` with `F_SETFD`): a child started with
/// exec never inherits it.
package func setCloseOnExec(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
}

/// Adds `O_NONBLOCK` to `descriptor`'s status flags (`fcntl(2)` with `F_GETFL` and `F_SETFL`).
package func setNonBlocking(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
}

/// Whether `descriptor` is a terminal. The C function is `isatty(3)`.
package func isTerminal(_ descriptor: Int32) -> Bool {
    isatty(descriptor) == 1
}

/// The standard descriptors (`STDIN_FILENO`, `STDOUT_FILENO`, `STDERR_FILENO`).
package enum StandardDescriptor {
    package static var input: Int32 { STDIN_FILENO }
    package static var output: Int32 { STDOUT_FILENO }
    package static var error: Int32 { STDERR_FILENO }
}

/// A second descriptor for what `descriptor` refers to (not close-on-exec), or nil when
/// none is left. The C function is `dup(2)`.
package func duplicateDescriptor(_ descriptor: Int32) -> Int32? {
    let duplicate = dup(descriptor)
    return duplicate < 0 ? nil : duplicate
}
