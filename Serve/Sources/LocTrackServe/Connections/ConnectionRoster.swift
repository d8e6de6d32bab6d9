/// The server's open connections, and at the connection limit which one gives way to a
/// newcomer (docs/http.md, "Limits"): the bookkeeping alone, with no socket and no clock
/// of its own, so that every rule is tested as plain values. ``ConnectionRegistry`` keeps
/// one behind a lock and carries out what it decides.
///
/// A connection is *waiting* while it has not sent a whole request head: just opened, a
/// head arriving in pieces, or kept alive between two requests. It is *busy* from a head
/// to the end of its answer; an event stream is busy for as long as it lasts.
///
/// At capacity, a newcomer takes the place of the connection that has waited longest
/// (since it opened, or since its previous answer ended), once that one has waited at
/// least `grace`: a client that has just connected has its head on the way, and a burst
/// of ordinary clients must not close one another before they could send anything. A
/// busy connection is never closed for a newcomer. While none can give way, nothing more
/// is accepted: the newcomer waits in the kernel's accept queue until a connection closes
/// or the oldest waiting one has waited `grace`.
struct ConnectionRoster<ID: Hashable> {
    /// Whether to accept the next connection now.
    enum AcceptDecision: Equatable {
        case accept
        /// Not now. Ask again at `until` (the oldest waiting connection may give way then),
        /// or, when nil, once ``ConnectionRoster/closed(_:)`` or
        /// ``ConnectionRoster/answerEnded(_:now:)`` says so.
        case wait(until: ContinuousClock.Instant?)
    }

    /// What becomes of a connection just accepted.
    enum Admission: Equatable {
        case admitted
        /// Admitted in place of `ID`, which is no longer on the roster and is to be closed.
        case admittedInPlaceOf(ID)
        /// No room and nobody to give way (the roster changed since the accept was
        /// decided): the newcomer is to be closed.
        case refused
    }

    /// When a waiting connection began to wait; `order` breaks ties between equal instants,
    /// so that of two connections that began in the same instant the first goes first.
    private struct Waiting {
        var since: ContinuousClock.Instant
        var order: UInt64
    }

    let capacity: Int
    let grace: Duration

    private var waiting: [ID: Waiting] = [:]
    private var busy: Set<ID> = []
    private var nextOrder: UInt64 = 0
    /// Whether the acceptor was told to wait, and until when: who must wake it.
    private var acceptorWaits: (waiting: Bool, until: ContinuousClock.Instant?) = (false, nil)

    init(capacity: Int, grace: Duration) {
        self.capacity = capacity
        self.grace = grace
    }

    /// Connections on the roster: what counts against the capacity.
    var count: Int { waiting.count + busy.count }

    /// Asked before each accept.
    mutating func shouldAccept(now: ContinuousClock.Instant) -> AcceptDecision {
        if count < capacity || giveWay(now: now) != nil {
            acceptorWaits = (false, nil)
            return .accept
        }
        let until = oldestWaiting().map { $0.since + grace }
        acceptorWaits = (true, until)
        return .wait(until: until)
    }

    /// A connection just accepted: it waits for its first head from `now`.
    mutating func admit(_ id: ID, now: ContinuousClock.Instant) -> Admission {
        var admission = Admission.admitted
        if count >= capacity {
            guard let victim = giveWay(now: now) else { return .refused }
            waiting[victim] = nil
            admission = .admittedInPlaceOf(victim)
        }
        startWaiting(id, now: now)
        return admission
    }

    /// A whole request head has been read on `id`: it is busy until its answer ends.
    mutating func requestHeadReceived(_ id: ID) {
        guard waiting.removeValue(forKey: id) != nil else { return }
        busy.insert(id)
    }

    /// The answer on `id` has been written out; it waits for the next head from `now`.
    /// Returns true when the acceptor is to ask again: it waits with no time to ask at,
    /// and now a connection may give way once its grace has passed.
    mutating func answerEnded(_ id: ID, now: ContinuousClock.Instant) -> Bool {
        guard busy.remove(id) != nil else { return false }
        startWaiting(id, now: now)
        guard acceptorWaits.waiting, acceptorWaits.until == nil else { return false }
        acceptorWaits = (false, nil)
        return true
    }

    /// `id` closed. Returns true when the acceptor is to ask again: it waits, and there is
    /// room now. (A connection that gave way was taken off when it did; its close frees
    /// nothing more.)
    mutating func closed(_ id: ID) -> Bool {
        guard waiting.removeValue(forKey: id) != nil || busy.remove(id) != nil else { return false }
        guard acceptorWaits.waiting else { return false }
        acceptorWaits = (false, nil)
        return true
    }

    private mutating func startWaiting(_ id: ID, now: ContinuousClock.Instant) {
        waiting[id] = Waiting(since: now, order: nextOrder)
        nextOrder += 1
    }

    /// The connection that gives way to a newcomer at `now`, if any: the one that has
    /// waited longest, once it has waited `grace`. A scan of at most `capacity` entries,
    /// made only at capacity.
    private func giveWay(now: ContinuousClock.Instant) -> ID? {
        guard let oldest = oldestWaiting(), oldest.since + grace <= now else { return nil }
        return oldest.id
    }

    private func oldestWaiting() -> (id: ID, since: ContinuousClock.Instant)? {
        waiting.min { ($0.value.since, $0.value.order) < ($1.value.since, $1.value.order) }
            .map { ($0.key, $0.value.since) }
    }
}
