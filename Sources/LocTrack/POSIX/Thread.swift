import Glibc

/// Starts `body` on a new, detached POSIX thread named `name` (as `top -H` and
/// `/proc/PID/task/*/comm` show it): a real thread, so blocking in `poll()`,
/// `gps_open()`, `write()` or `sigwait()` never occupies Swift's cooperative pool.
/// Used by the reader and its connector, and by the CLI's writer and signal threads.
///
/// - Throws: the error number from `pthread_create`; `body` then never runs.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) {
    final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(_ name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
    let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { context in
        let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
        nameCallingThread(body.name)
        body.run()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        throw Errno(code: status)
    }
    pthread_detach(thread)
}

/// Names the calling thread. Glibc's module does not export the GNU-only
/// `pthread_setname_np`, and `prctl` is variadic, so write the name where the
/// kernel keeps it (15 bytes). Best effort: a missing /proc changes nothing else.
private func nameCallingThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = writeAll(descriptor, String(name.utf8.prefix(15)) ?? "loctrack")
    close(descriptor)
}
