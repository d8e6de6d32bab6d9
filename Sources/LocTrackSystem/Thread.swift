internal import CGlibcExtras
import Glibc
import Synchronization

/// A running POSIX thread, joined when its handle goes away: whoever holds the handle
/// owns the thread, and once the handle is gone (or ``join()`` returned) the thread is
/// gone too. A real thread, so blocking in `poll()`, `gps_open()` or `write()` never
/// occupies Swift's cooperative pool. Noncopyable, so a thread is joined exactly once.
///
/// A thread never joins itself: when the handle goes away on its own thread (its body
/// dropped the last reference to its owner), the join is handed to ``ThreadReaper``,
/// which joins it once the body has returned.
///
/// The body must end when the owner asks it to (a flag and a wake-up, as every loctrack
/// thread does), or the owner's last release waits for it.
package struct JoinableThread: ~Copyable, Sendable {
    private let thread: pthread_t

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept, as
    /// `top -H` and `/proc/PID/task/*/comm` show it). The C function is `pthread_create(3)`.
    /// - Throws: the error number from `pthread_create`; `body` then never runs.
    package init(named name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) {
        final class Body {
            let name: String
            let run: @Sendable () -> Void
            init(_ name: String, _ run: @escaping @Sendable () -> Void) {
                self.name = name
                self.run = run
            }
        }
        let shortName = String(name.utf8.prefix(15)) ?? "loctrack"
        let context = Unmanaged.passRetained(Body(shortName, body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            _ = loctrack_name_calling_thread(body.name)
            body.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw Errno(code: status)
        }
        // Named here too, so that the name shows as soon as this returns (the thread names
        // itself as well, for what it runs before this line does).
        _ = loctrack_name_thread(thread, shortName)
        self.thread = thread
    }

    /// Whether the calling thread is this one.
    package var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    deinit { Self.join(thread) }

    /// Waits until the thread has ended. On the thread itself, hands the join to
    /// ``ThreadReaper`` instead. The C function is `pthread_join(3)`.
    package consuming func join() {
        let thread = thread
        discard self
        Self.join(thread)
    }

    /// Lets ``ThreadReaper`` join the thread whenever its body returns, for a thread that
    /// may block long after its owner stopped waiting for it (a `connect()` without a
    /// timeout).
    package consuming func handToReaper() {
        let thread = thread
        discard self
        ThreadReaper.adopt(thread)
    }

    private static func join(_ thread: pthread_t) {
        if pthread_equal(thread, pthread_self()) != 0 {
            ThreadReaper.adopt(thread)
            return
        }
        let status = pthread_join(thread, nil)
        // EDEADLK (itself) is excluded above; ESRCH and EINVAL mean a handle joined twice,
        // which a noncopyable handle rules out.
        precondition(status == 0, "pthread_join: \(Errno(code: status))")
    }
}

/// Joins the threads whose last owner let go on the thread itself, or that an owner
/// stopped waiting for (``JoinableThread/handToReaper()``).
///
/// Its thread, `loctrack-reaper`, is started when a join is handed over and ends as soon
/// as none is left. It is the one loctrack thread nobody joins: it is detached when it
/// starts, as joining it would need a reaper of its own. It runs no other code, holds no
/// descriptor, and is gone moments after the last thread it joined.
package enum ThreadReaper {
    private struct State {
        var pending: [pthread_t] = []
        var running = false
    }

    private static let state = Mutex(State())

    static func adopt(_ thread: pthread_t) {
        let start = state.withLock { state -> Bool in
            state.pending.append(thread)
            defer { state.running = true }
            return !state.running
        }
        guard start else { return }
        var reaper = pthread_t()
        let status = pthread_create(&reaper, nil, { _ in
            _ = loctrack_name_calling_thread("loctrack-reaper")
            ThreadReaper.run()
            return nil
        }, nil)
        guard status == 0 else {
            // No reaper: the threads handed over end anyway, and are detached so that
            // what they leave behind is freed when they do.
            let orphans = state.withLock { state -> [pthread_t] in
                state.running = false
                defer { state.pending = [] }
                return state.pending
            }
            for orphan in orphans { pthread_detach(orphan) }
            return
        }
        pthread_detach(reaper)
    }

    /// Joins what was handed over, in order, until nothing is left.
    private static func run() {
        while true {
            let next = state.withLock { state -> [pthread_t] in
                if state.pending.isEmpty { state.running = false }
                defer { state.pending = [] }
                return state.pending
            }
            if next.isEmpty { return }
            for thread in next { pthread_join(thread, nil) }
        }
    }
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
/// memory the other cannot reuse. Call before the threads start.
package func useOneMallocArena() {
    _ = loctrack_limit_malloc_arenas(1)
}
