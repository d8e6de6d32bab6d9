@testable import LocTrackWeb
import Synchronization
import Testing

/// ``EventStream``s made by ``EventStreamHost`` from the broadcaster: real continuations,
/// resumed after the lock. No test waits on a clock: a read that must wait is started in a
/// task, and the test goes on once the broadcaster holds its waiter.
@Suite("Event streams: waiting reads, cancel, finish", .timeLimit(.minutes(1)))
struct EventStreamTests {
    /// Waits (yielding) until the host's stream has a waiting read.
    func untilWaiting(_ host: TestEventHost) async {
        while !host.state.withLock({ $0.hasWaiter }) { await Task.yield() }
    }

    @Test("given a stream reading before any event when an event is published then the read returns it")
    func waitingReadResumed() async throws {
        let host = TestEventHost()
        let stream = try #require(host.openStream(after: nil).stream)
        let read = Task { await stream.nextText() }
        await untilWaiting(host)
        host.publish(.fix, "{}")
        #expect(await read.value == "id: abc-1\nevent: fix\ndata: {}\n\n")
    }

    @Test("given a waiting read when the stream is cancelled then the read returns nil and the stream is gone")
    func cancelEndsRead() async throws {
        let host = TestEventHost()
        let stream = try #require(host.openStream(after: nil).stream)
        let read = Task { await stream.nextText() }
        await untilWaiting(host)
        stream.cancel()
        #expect(await read.value == nil)
        #expect(host.state.withLock { $0.streamCount } == 0)
    }

    @Test("given a waiting read when its task is cancelled then it returns nil and the stream is removed")
    func taskCancellationEndsRead() async throws {
        let host = TestEventHost()
        let stream = try #require(host.openStream(after: nil).stream)
        let read = Task { await stream.nextText() }
        await untilWaiting(host)
        read.cancel()
        #expect(await read.value == nil)
        #expect(host.state.withLock { $0.streamCount } == 0)
    }

    @Test("given two streams, one waiting, when the host finishes then both end and a new one ends at once")
    func finishEndsAll() async throws {
        let host = TestEventHost()
        let waiting = try #require(host.openStream(after: nil).stream)
        let idle = try #require(host.openStream(after: nil).stream)
        let read = Task { await waiting.nextText() }
        await untilWaiting(host)
        host.finishStreams()
        #expect(await read.value == nil)
        #expect(await idle.nextText() == nil)
        #expect(await host.openStream(after: nil).stream?.nextText() == nil)
    }

    @Test("given one stream allowed when a second opens then it is .full")
    func full() {
        let host = TestEventHost(limits: .init(maxStreams: 1))
        #expect(host.openStream(after: nil).stream != nil)
        #expect(host.openStream(after: nil).stream == nil)
    }

    @Test("given a waiting read when 15 s pass on the host's clock and keep-alives are sent then it gets the comment")
    func keepAlive() async throws {
        let host = TestEventHost()
        let stream = try #require(host.openStream(after: nil).stream)
        let read = Task { await stream.nextText() }
        await untilWaiting(host)
        host.sendKeepAlives()
        host.clock.advance(milliseconds: 15_000)
        host.sendKeepAlives()
        #expect(await read.value == ": keep-alive\n\n")
    }

    @Test("given events already there when a stream opened after abc-1 is iterated then it yields the rest as one chunk and ends when finished")
    func iterates() async throws {
        let host = TestEventHost()
        for _ in 1...3 { host.publish(.sky, "{}") }
        let stream = try #require(host.openStream(after: "abc-1").stream)
        let all = Task {
            var chunks: [String] = []
            for await chunk in stream { chunks.append(String(decoding: chunk, as: UTF8.self)) }
            return chunks
        }
        await untilWaiting(host)
        host.finishStreams()
        #expect(await all.value == ["id: abc-2\nevent: sky\ndata: {}\n\nid: abc-3\nevent: sky\ndata: {}\n\n"])
    }
}

extension EventBroadcaster {
    /// Whether some stream waits in `next()` (for tests that must not race the waiter).
    var hasWaiter: Bool { waitingCount > 0 }
}
