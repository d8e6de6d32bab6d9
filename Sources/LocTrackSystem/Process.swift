import Glibc

// Starting loctrack's track writer (this executable again) and waiting for it,
// and ending the process.

/// How a child process ended (`waitpid(2)`'s status).
package enum ExitStatus: Equatable, Sendable {
    /// It called exit with this code.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)
}

/// Starts this executable again (`/proc/self/exe`) with `arguments` (the first is its
/// name), `stdin` and `stdout` as its standard input and output, and `blocked` in its
/// signal mask. The environment is this process's. The C function is `posix_spawn(3)`.
/// - Returns: the child's process id.
package func spawnThisExecutable(
    _ arguments: [String], stdin: Int32, stdout: Int32, blocking blocked: [Signal]
) throws(Errno) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin, STDIN_FILENO)
    posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in blocked { sigaddset(&mask, signal.rawValue) }
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let result = posix_spawn(&child, "/proc/self/exe", &actions, &attributes, argv, environ)
    guard result == 0 else { throw Errno(code: result) }
    return child
}

/// Waits for the child `process` to end, through signals. The C function is `waitpid(2)`.
/// - Throws: ``Errno`` ECHILD when `process` is no child of this one (or was waited for).
package func waitForExit(of process: Int32) throws(Errno) -> ExitStatus {
    var status: Int32 = 0
    _ = try valueOrErrno { waitpid(process, &status, 0) }
    let signal = status & 0x7F
    return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
}

/// Ends the process with `code` after running the exit handlers and flushing stdio.
/// The C function is `exit(3)`.
package func exitProcess(_ code: Int32) -> Never {
    exit(code)
}

/// Ends the process with `code` at once: no exit handlers, no flushing (a second
/// Ctrl-C, or a signal before anything was written). The C function is `_exit(2)`.
package func exitImmediately(_ code: Int32) -> Never {
    _exit(code)
}

/// The absolute path of this process's executable, symbolic links resolved. The C
/// function is `readlink(2)` of `/proc/self/exe`.
package func currentExecutablePath() throws(Errno) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = try valueOrErrno {
        buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
    }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Replaces this process with the program at `path`, run with `arguments` (the first is
/// its name) and this process's environment. It starts as a program started by a shell
/// would: loctrack's `main` blocked SIGINT and SIGTERM and ignored SIGPIPE, and both a
/// signal mask and an ignored signal survive `execv`, so they are undone first (the
/// descriptors loctrack opened are close-on-exec). The C functions are `sigprocmask(2)`,
/// `signal(2)` and `execv(3)`.
/// - Throws: why the exec failed; it returns only then.
package func replaceProcess(with path: String, arguments: [String]) throws(Errno) -> Never {
    var nothing = sigset_t()
    sigemptyset(&nothing)
    var previous = sigset_t()
    pthread_sigmask(SIG_SETMASK, &nothing, &previous)
    let previousPipeHandler = Glibc.signal(SIGPIPE, SIG_DFL)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let failure: Errno
    do throws(Errno) {
        _ = try valueOrErrno { execv(path, argv) }
        preconditionFailure("execv returned without an error")
    } catch {
        failure = error
    }
    // Still this process: put back what it runs with.
    _ = Glibc.signal(SIGPIPE, previousPipeHandler)
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    throw failure
}
