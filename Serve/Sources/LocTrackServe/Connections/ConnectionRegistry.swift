import NIOCore
import Synchronization

/// The server's connections, shared by the listening channel's ``ConnectionGate`` and every
/// connection's ``ConnectionReporter``: a ``ConnectionRoster`` behind a lock, the channels
/// it names, and what to call when the acceptor is to ask again.
///
/// The roster decides under the lock; what it decides is done after the lock is released:
/// a connection that gives way is closed (`Channel.close` runs on that channel's own event
/// loop), the acceptor is woken. Connections are named by their channel's identity, which
/// stays unique while the channel is held here, that is until it closes.
final class ConnectionRegistry: Sendable {
    typealias Roster = ConnectionRoster<ObjectIdentifier>

    /// What the acceptor does next: accept, or wait until a close, an answer's end (which
    /// calls the wake it attached) or `retryIn` has passed.
    enum AcceptorStep: Equatable {
        case accept
        case wait(retryIn: Duration?)
    }

    private struct State {
        var roster: Roster
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Set while a ``ConnectionGate`` is on the listening channel.
        var wakeAcceptor: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameter now: the clock; the tests' moves only when told.
    init(capacity: Int, grace: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.state = Mutex(State(roster: Roster(capacity: capacity, grace: grace)))
        self.now = now
    }

    /// The registry for `limits`' connections and grace, on the continuous clock.
    convenience init(limits: ServeLimits) {
        self.init(capacity: limits.connections, grace: Duration(limits.shedAfter), now: { ContinuousClock.now })
    }

    /// Connections on the roster (for the tests).
    var count: Int { state.withLock { $0.roster.count } }

    var hasAcceptor: Bool { state.withLock { $0.wakeAcceptor != nil } }

    func attachAcceptor(wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wakeAcceptor = wake }
    }

    func detachAcceptor() {
        state.withLock { $0.wakeAcceptor = nil }
    }

    /// The acceptor's question before each accept.
    func nextAcceptorStep() -> AcceptorStep {
        state.withLock { state in
            let time = now()
            switch state.roster.shouldAccept(now: time) {
            case .accept:
                return .accept
            case .wait(let until):
                return .wait(retryIn: until.map { max(.zero, $0 - time) })
            }
        }
    }

    /// A connection just accepted. Returns false when it is refused: the caller closes it.
    /// When it is admitted in another's place, that one is closed here.
    func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let (admitted, givingWay) = state.withLock { state -> (Bool, (any Channel)?) in
            switch state.roster.admit(id, now: now()) {
            case .refused:
                return (false, nil)
            case .admitted:
                state.channels[id] = channel
                return (true, nil)
            case .admittedInPlaceOf(let victim):
                state.channels[id] = channel
                return (true, state.channels.removeValue(forKey: victim))
            }
        }
        givingWay?.close(promise: nil)
        if admitted {
            channel.closeFuture.whenComplete { _ in self.closed(id) }
        }
        return admitted
    }

    /// A whole request head has been read on `channel`.
    func requestHeadReceived(on channel: any Channel) {
        state.withLock { $0.roster.requestHeadReceived(ObjectIdentifier(channel)) }
    }

    /// The answer on `channel` has been written out.
    func answerEnded(on channel: any Channel) {
        let wake = state.withLock { state in
            state.roster.answerEnded(ObjectIdentifier(channel), now: now()) ? state.wakeAcceptor : nil
        }
        wake?()
    }

    private func closed(_ id: ObjectIdentifier) {
        let wake = state.withLock { state in
            state.channels[id] = nil
            return state.roster.closed(id) ? state.wakeAcceptor : nil
        }
        wake?()
    }
}
