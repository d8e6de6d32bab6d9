import Synchronization

/// The one thread a component owns: started once, joined once, whichever of the
/// component's paths (its `finish`, its `deinit`, an abandon) gets there first.
///
/// A stored property of the component, so that the thread goes with it: when the
/// component is released, its `deinit` asks the thread to stop (a flag and a wake-up, as
/// every loctrack thread does), and then this property goes and joins it. Noncopyable,
/// so that a thread has one owner; Sendable, so that any of the owner's threads may
/// join it. A join on the thread itself (its body released the last reference to its
/// component) is handed to ``ThreadReaper`` by ``JoinableThread``.
package struct ThreadOwner: ~Copyable, Sendable {
    private let thread = Mutex<JoinableThread?>(nil)

    /// An owner with no thread yet: ``start(named:_:)`` starts it, once the component's
    /// other properties (which the body may capture) are set.
    package init() {}

    /// Starts `body` on a new thread named `name` (see ``JoinableThread/init(named:_:)``).
    /// A component starts its thread once: a second start is a programming error.
    /// - Throws: the error number from `pthread_create`; `body` then never runs.
    package func start(named name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) {
        var started: JoinableThread? = try JoinableThread(named: name, body)
        thread.withLock { thread in
            precondition(thread == nil, "\(name): a ThreadOwner starts one thread")
            thread = started.take()
        }
    }

    /// Waits until the thread has ended; does nothing when it was never started or is
    /// joined already. The join happens outside the lock, so that another path asking at
    /// the same time returns at once instead of waiting for the join.
    package func join() {
        if let running = thread.withLock({ $0.take() }) { running.join() }
    }

    /// Leaves the thread to ``ThreadReaper``, for a thread that may block long after its
    /// owner stopped waiting for it (`connect()` without a timeout). Does nothing when it
    /// is joined already.
    package func handToReaper() {
        if let running = thread.withLock({ $0.take() }) { running.handToReaper() }
    }
}
