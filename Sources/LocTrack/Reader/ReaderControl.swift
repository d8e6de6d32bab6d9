import Synchronization
import LocTrackSystem

/// What other threads ask of the reader thread: stop, pause, poll. Each request
/// is a flag the reader reads before it sleeps, and a wake-up of its `poll()`.
final class ReaderControl: Sendable {
    enum StopRequest: Int { case none = 0, flushing = 1, immediately = 2 }

    let wakeUps: WakeUpPipe
    private let stop = Atomic<Int>(StopRequest.none.rawValue)
    private let paused = Atomic<Bool>(false)
    private let poll = Atomic<Bool>(false)
    private let provisional = Atomic<Bool>(false)

    init() throws(Errno) {
        wakeUps = try WakeUpPipe()
    }

    /// Asks the reader to stop. With `flushing`, fixes it holds (an epoch that might
    /// still have grown) are delivered first. The first request wins.
    func requestStop(flushing: Bool) {
        let request = flushing ? StopRequest.flushing : .immediately
        _ = stop.compareExchange(expected: StopRequest.none.rawValue, desired: request.rawValue, ordering: .sequentiallyConsistent)
        wakeUps.wake()
    }

    var stopRequest: StopRequest {
        StopRequest(rawValue: stop.load(ordering: .sequentiallyConsistent)) ?? .none
    }

    var isStopRequested: Bool { stopRequest != .none }

    /// Backpressure: while paused the reader leaves gpsd's reports in the socket.
    /// Stores only; after un-pausing, ``WakeUpPipe/wake()`` the reader.
    func setPaused(_ pause: Bool) {
        paused.store(pause, ordering: .sequentiallyConsistent)
    }

    var isPaused: Bool { paused.load(ordering: .sequentiallyConsistent) }

    /// Asks gpsd for its latest fixes (`?POLL;`) as soon as the watch is on.
    func requestPoll() {
        poll.store(true, ordering: .sequentiallyConsistent)
        wakeUps.wake()
    }

    func takePollRequest() -> Bool { poll.exchange(false, ordering: .sequentiallyConsistent) }

    /// Whether a consumer wants fixes before their epoch is known to be complete.
    var sendsProvisionalFixes: Bool {
        get { provisional.load(ordering: .sequentiallyConsistent) }
        set { provisional.store(newValue, ordering: .sequentiallyConsistent) }
    }
}

/// Collects what the reader produces between two sleeps and hands it on as one
/// batch: one lock and at most one consumer wake-up per reader wake-up, however
/// many reports gpsd's packets held.
final class ReaderOutput {
    private var pending: [ReaderEvent] = []
    private let deliver: @Sendable ([ReaderEvent]) -> Void

    init(deliver: @escaping @Sendable ([ReaderEvent]) -> Void) {
        self.deliver = deliver
    }

    /// Takes the event (`consuming`): it moves into the batch instead of being
    /// copied there and destroyed by the caller, code run for every fix.
    func send(_ event: consuming ReaderEvent) {
        pending.append(event)
    }

    /// Hands everything collected on; called before every sleep and at the end.
    func flush() {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        deliver(batch)
    }
}
