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
package func waitForExit(of process: Int32) -> ExitStatus {
    var status: Int32 = 0
    while waitpid(process, &status, 0) < 0, errno == EINTR {}
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
