import Synchronization

/// Whether a thread's body has returned, for an owner that must not block a task while it
/// waits: the owner asks its thread to stop, awaits ``wait()`` (or registers ``whenEnded(_:)``),
/// then joins the ``JoinableThread``, which by then waits for no more than the return. The
/// thread calls ``markEnded()`` as its last act. LocTrackSpool's uplink shell (the MQTT
/// publisher's and the Traccar uplink's thread) waits on it.
package final class ThreadEnd: Sendable {
    private struct State {
        var ended = false
        var waiters: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether the thread has called ``markEnded()``.
    package var hasEnded: Bool { state.withLock { $0.ended } }

    /// Runs `action` once the thread has ended (at once, on the caller's thread, if it has;
    /// else on the thread, as its last act).
    package func whenEnded(_ action: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state in
            if !state.ended { state.waiters.append(action) }
            return state.ended
        }
        if ended { action() }
    }

    /// Returns once the thread has ended.
    package func wait() async {
        await withCheckedContinuation { continuation in whenEnded { continuation.resume() } }
    }

    /// Called by the thread as its last act: runs what waits for it, outside the lock.
    package func markEnded() {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }
}
