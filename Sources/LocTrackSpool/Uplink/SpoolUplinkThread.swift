package import LocTrackSystem

/// What a store-and-forward uplink's thread shares with the program: its ``UplinkChannel``,
/// and the stop request, which each protocol records and reads its own way (MQTT drains for
/// as long as asked from when its thread sees the request; Traccar by a deadline that
/// libcurl also cuts a request short at).
package protocol SpoolUplinkCore: AnyObject, Sendable {
    associatedtype Status: SpoolUplinkStatus
    var channel: UplinkChannel<Status> { get }
    /// Records that the program asks the thread to stop after draining for up to `drain`;
    /// the first request stands. Called before the thread is woken for it.
    func recordStopRequest(drainingFor drain: Duration)
}

extension SpoolUplinkCore {
    /// Asks the thread to stop after draining for up to `drain` (the first request stands)
    /// and wakes it.
    /// - Returns: whether the thread has already ended.
    @discardableResult
    package func requestStop(drainingFor drain: Duration) -> Bool {
        recordStopRequest(drainingFor: drain)
        return channel.wakeForStop()
    }
}

/// A store-and-forward uplink's thread, as the program holds it: started with the uplink,
/// its body given the ``SpoolUplinkCore`` (the spool, the wake-up, the stop request), not
/// this handle, so that an uplink nobody holds any more is released, and its release stops
/// the thread at once (what the server has not taken stays in the spool) and joins it.
/// ``finish(drainingFor:)`` lets it drain first. A third uplink is a transport and a state
/// machine in a loop run here; the rest is this and ``UplinkChannel``.
package final class SpoolUplinkThread<Core: SpoolUplinkCore>: Sendable {
    package let core: Core
    private let thread = ThreadOwner()

    /// Starts `body` on a thread named `name`; its last act marks the channel's end.
    /// - Throws: pthread_create(3)'s `Errno`; `body` then never runs.
    package init(named name: String, core: Core, _ body: @escaping @Sendable (Core) -> Void) throws(Errno) {
        self.core = core
        try thread.start(named: name) {
            body(core)
            core.channel.end.markEnded()
        }
    }

    /// Stops the thread at once; the join follows as the thread's owner goes, after this
    /// (by ``ThreadReaper`` when this runs on the thread itself: a status callback that
    /// held the last reference).
    deinit {
        core.requestStop(drainingFor: .zero)
    }

    /// Asks the thread to stop after draining for up to `drain`, waits until it has ended
    /// (suspending, not blocking, the caller's task), then joins it, which by then waits
    /// for no more than its return.
    package func finish(drainingFor drain: Duration) async {
        if !core.requestStop(drainingFor: drain) { await core.channel.end.wait() }
        thread.join()
    }
}
