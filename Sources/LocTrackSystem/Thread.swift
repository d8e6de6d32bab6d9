internal import CGlibcExtras
import Glibc

/// Starts `body` on a new, detached POSIX thread named `name` (at most 15 bytes
/// are kept, as `top -H` and `/proc/PID/task/*/comm` show it): a real thread, so blocking in `poll()`,
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
        _ = loctrack_name_calling_thread(String(body.name.utf8.prefix(15)) ?? "loctrack")
        body.run()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        throw Errno(code: status)
    }
    pthread_detach(thread)
}


/// A thread's identity, to tell whether the calling thread is a given one. The C functions
/// are `pthread_self(3)` and `pthread_equal(3)`; a `pthread_t` is an integer on Linux, so
/// the value is Sendable without help. Compared only while the thread runs (a finished
/// thread's identity may be reused).
package struct ThreadIdentity: Equatable, Sendable {
    private let thread: pthread_t

    /// The calling thread's.
    package static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    package static func == (a: ThreadIdentity, b: ThreadIdentity) -> Bool {
        pthread_equal(a.thread, b.thread) != 0
    }
}


/// Lets every thread allocate from one malloc arena. loctrack's reader and consumer
/// threads both allocate, and glibc would give each an arena of its own whose free
/// memory the other cannot reuse: one arena keeps 0.8 MB less private memory in a
/// long flood, at no measurable CPU cost. Call before the threads start.
package func useOneMallocArena() {
    _ = loctrack_limit_malloc_arenas(1)
}
