@testable import LocTrackWeb
import Synchronization

/// A broadcaster behind a lock of its own, to test ``EventStream``s without a ``LiveHub``.
final class TestEventHost: EventStreamHost {
    let state: Mutex<EventBroadcaster<EventWaiter>>
    let clock = ManualClock()

    init(limits: EventBroadcaster<EventWaiter>.Limits = .init(), run: String = "abc") {
        state = Mutex(EventBroadcaster(run: run, limits: limits))
    }

    func withEventBroadcaster<Result: Sendable>(_ body: (inout EventBroadcaster<EventWaiter>) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    func monotonicMilliseconds() -> Int64 {
        clock.liveClock.monotonicMilliseconds()
    }

    func publish(_ name: ServerSentEvent.Name, _ data: String) {
        let now = monotonicMilliseconds()
        resume(state.withLock { $0.publish(name, data: data, now: now).resumptions })
    }
}

extension EventStreamOpening {
    /// The stream, or nil for `.full`.
    var stream: EventStream? {
        if case .opened(let stream) = self { return stream }
        return nil
    }
}

extension EventStream {
    /// The next chunk as text.
    func nextText() async -> String? {
        var iterator = makeAsyncIterator()
        return await iterator.next().map { String(decoding: $0, as: UTF8.self) }
    }
}
