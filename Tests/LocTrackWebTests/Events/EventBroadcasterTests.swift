@testable import LocTrackWeb
import Testing

/// ``EventBroadcaster`` on its own: each call's exact result, with plain numbers for the
/// waiting `next()`s and the clock given by hand.
@Suite("Event broadcaster: who gets which event")
struct EventBroadcasterTests {
    typealias Broadcaster = EventBroadcaster<Int>

    static func event(_ sequence: Int, _ name: String = "fix", _ data: String? = nil) -> String {
        "id: abc-\(sequence)\nevent: \(name)\ndata: \(data ?? "{\"n\":\(sequence)}")\n\n"
    }

    static func events(_ sequences: ClosedRange<Int>) -> String {
        sequences.map { event($0) }.joined()
    }

    static func reset(_ sequence: Int) -> String {
        "id: abc-\(sequence)\nevent: reset\ndata: {}\n\n"
    }

    func broadcaster(_ limits: Broadcaster.Limits = .init()) -> Broadcaster {
        Broadcaster(run: "abc", limits: limits)
    }

    func publish(_ count: Int, into broadcaster: inout Broadcaster, now: Int64 = 0) -> [Broadcaster.Resumption] {
        var resumptions: [Broadcaster.Resumption] = []
        for _ in 0..<count {
            let sequence = broadcaster.ring.lastSequence + 1
            resumptions += broadcaster.publish(.fix, data: "{\"n\":\(sequence)}", now: now).resumptions
        }
        return resumptions
    }

    func open(_ broadcaster: inout Broadcaster, after: String? = nil, now: Int64 = 0) throws -> Broadcaster.SubscriberID {
        guard case .opened(let id) = broadcaster.subscribe(after: after, now: now) else {
            Issue.record("expected the stream to open")
            throw CancellationError()
        }
        return id
    }

    func text(_ action: Broadcaster.NextAction) -> String? {
        guard case .deliver(let chunk) = action else { return nil }
        return String(decoding: chunk, as: UTF8.self)
    }

    func texts(_ resumptions: [Broadcaster.Resumption]) -> [(Int, String?)] {
        resumptions.map { ($0.waiter, $0.chunk.map { String(decoding: $0, as: UTF8.self) }) }
    }

    // MARK: Order

    @Test("given a stream opened before three events when it reads then it gets all three at once, in order, numbered from 1")
    func ordering() throws {
        var broadcaster = broadcaster()
        let id = try open(&broadcaster)
        #expect(publish(3, into: &broadcaster).isEmpty)
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.events(1...3))
        #expect(broadcaster.next(id, waiter: 2) == .suspend)
        #expect(broadcaster.lastEventID.description == "abc-3")
    }

    @Test("given a stream waiting when an event is published then its waiter is resumed with exactly that event, once")
    func waiterResumed() throws {
        var broadcaster = broadcaster()
        let id = try open(&broadcaster)
        #expect(broadcaster.next(id, waiter: 7) == .suspend)
        let resumed = texts(publish(1, into: &broadcaster))
        #expect(resumed.map(\.0) == [7])
        #expect(resumed.map(\.1) == [Self.event(1)])
        #expect(publish(1, into: &broadcaster).isEmpty)  // not waiting any more: queued
        #expect(text(broadcaster.next(id, waiter: 8)) == Self.event(2))
    }

    @Test("given a stream opened without an id when events were sent before then it starts with the next event")
    func startsWithNextEvent() throws {
        var broadcaster = broadcaster()
        _ = publish(5, into: &broadcaster)
        let id = try open(&broadcaster)
        #expect(broadcaster.next(id, waiter: 1) == .suspend)
        #expect(texts(publish(1, into: &broadcaster)).map(\.1) == [Self.event(6)])
    }

    @Test("given a client that read 2 events and left when it reconnects with Last-Event-ID abc-2 then it gets 3 to 5 and then the live 6: no gap, no repeat")
    func noGapAcrossReconnect() throws {
        var broadcaster = broadcaster()
        let first = try open(&broadcaster)
        _ = publish(2, into: &broadcaster)
        #expect(text(broadcaster.next(first, waiter: 1)) == Self.events(1...2))
        #expect(broadcaster.cancel(first) == nil)
        _ = publish(3, into: &broadcaster)
        let again = try open(&broadcaster, after: "abc-2")
        #expect(text(broadcaster.next(again, waiter: 2)) == Self.events(3...5))
        #expect(broadcaster.next(again, waiter: 3) == .suspend)
        #expect(texts(publish(1, into: &broadcaster)).map(\.1) == [Self.event(6)])
    }

    @Test("given abc-0 (a track loaded before any event) when events 1 and 2 came since then both are replayed")
    func afterNothingReplaysAll() throws {
        var broadcaster = broadcaster()
        _ = publish(2, into: &broadcaster)
        let id = try open(&broadcaster, after: "abc-0")
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.events(1...2))
    }

    // MARK: Reset

    @Test("given a ring of 4 after 10 events when a client asks for those after abc-2 then it gets a reset with the latest id, then live events")
    func ringOverflowResets() throws {
        var broadcaster = broadcaster(.init(ringCapacity: 4))
        _ = publish(10, into: &broadcaster)
        #expect(broadcaster.ring.firstSequence == 7)
        let id = try open(&broadcaster, after: "abc-2")
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.reset(10))
        #expect(broadcaster.next(id, waiter: 2) == .suspend)
        #expect(texts(publish(1, into: &broadcaster)).map(\.1) == [Self.event(11)])
    }

    @Test("given a ring of 4 after 10 events when a client asks for those after abc-6 then all it missed is held and replayed without a reset")
    func oldestHeldReplays() throws {
        var broadcaster = broadcaster(.init(ringCapacity: 4))
        _ = publish(10, into: &broadcaster)
        let id = try open(&broadcaster, after: "abc-6")
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.events(7...10))
    }

    @Test("given ids of another run or from the future when a client opens with them then it gets a reset", arguments: ["def-3", "abc-99"])
    func otherRunResets(after: String) throws {
        var broadcaster = broadcaster()
        _ = publish(5, into: &broadcaster)
        let id = try open(&broadcaster, after: after)
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.reset(5))
    }

    @Test("given an id that does not parse when a client opens with it then it counts as none: no reset, the next event", arguments: ["", "garbage", "ABC-3", "abc-", "abc-3x", "abc--3"])
    func malformedIDIsNone(after: String) throws {
        var broadcaster = broadcaster()
        _ = publish(5, into: &broadcaster)
        let id = try open(&broadcaster, after: after)
        #expect(broadcaster.next(id, waiter: 1) == .suspend)
    }

    // MARK: Slow clients

    @Test("given a queue limit of 3 when a client does not read while 4 events come then it is cut off and the reading client gets all 4")
    func slowClientCutOff() throws {
        var broadcaster = broadcaster(.init(queueLimit: 3))
        let slow = try open(&broadcaster)
        let fast = try open(&broadcaster)
        var received: [String] = []
        for waiter in 1...4 {
            #expect(broadcaster.next(fast, waiter: waiter) == .suspend)
            let resumed = texts(publish(1, into: &broadcaster))
            #expect(resumed.map(\.0) == [waiter])
            received += resumed.compactMap(\.1)
            #expect(broadcaster.streamCount == (waiter < 4 ? 2 : 1))
        }
        #expect(received == (1...4).map { Self.event($0) })
        #expect(broadcaster.next(slow, waiter: 9) == .end)
    }

    @Test("given a replay of 10 events with a queue limit of 3 when 3 live events come unread then the client stays; a 4th cuts it off")
    func replayNotCounted() throws {
        var broadcaster = broadcaster(.init(queueLimit: 3))
        _ = publish(10, into: &broadcaster)
        let id = try open(&broadcaster, after: "abc-0")
        _ = publish(3, into: &broadcaster)
        #expect(broadcaster.streamCount == 1)
        _ = publish(1, into: &broadcaster)
        #expect(broadcaster.streamCount == 0)
        #expect(broadcaster.next(id, waiter: 1) == .end)
    }

    @Test("given a client that reads part of its replay when live events come then only those count against its queue")
    func partialReplayThenLive() throws {
        var broadcaster = broadcaster(.init(queueLimit: 2, batchBytes: 1))
        _ = publish(3, into: &broadcaster)
        let id = try open(&broadcaster, after: "abc-0")
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.event(1))  // batchBytes 1: one event a call
        _ = publish(2, into: &broadcaster)
        #expect(broadcaster.streamCount == 1)
        #expect(text(broadcaster.next(id, waiter: 2)) == Self.event(2))
        #expect(text(broadcaster.next(id, waiter: 3)) == Self.event(3))
        #expect(text(broadcaster.next(id, waiter: 4)) == Self.event(4))
    }

    @Test("given a client replaying from the ring's oldest event when a new event pushes that one out then it is cut off, not given a gap")
    func pushedOutOfRingCutOff() throws {
        var broadcaster = broadcaster(.init(queueLimit: 100, ringCapacity: 4))
        _ = publish(4, into: &broadcaster)
        let id = try open(&broadcaster, after: "abc-0")
        _ = publish(1, into: &broadcaster)
        #expect(broadcaster.next(id, waiter: 1) == .end)
    }

    @Test("given events larger together than a batch when a client catches up then each next() hands out whole events up to the batch size")
    func batches() throws {
        let size = Self.event(1).utf8.count
        var broadcaster = broadcaster(.init(batchBytes: size + 1))
        let id = try open(&broadcaster)
        _ = publish(3, into: &broadcaster)
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.events(1...2))
        #expect(text(broadcaster.next(id, waiter: 2)) == Self.event(3))
    }

    // MARK: Limits, cancel, finish

    @Test("given 2 streams allowed when a third opens then it is refused; after one is cancelled, it opens")
    func maxStreams() throws {
        var broadcaster = broadcaster(.init(maxStreams: 2))
        let first = try open(&broadcaster)
        _ = try open(&broadcaster)
        #expect(broadcaster.subscribe(after: nil, now: 0) == .full)
        _ = broadcaster.cancel(first)
        _ = try open(&broadcaster)
        #expect(broadcaster.streamCount == 2)
    }

    @Test("given a waiting stream when it is cancelled then its waiter comes back to be ended, and it gets nothing more")
    func cancel() throws {
        var broadcaster = broadcaster()
        let id = try open(&broadcaster)
        #expect(broadcaster.next(id, waiter: 5) == .suspend)
        #expect(broadcaster.cancel(id) == 5)
        #expect(broadcaster.cancel(id) == nil)
        #expect(publish(1, into: &broadcaster).isEmpty)
        #expect(broadcaster.next(id, waiter: 6) == .end)
        #expect(broadcaster.streamCount == 0)
    }

    @Test("given a stream already waiting when a second next() comes then the second ends and the first still gets the event")
    func secondNextEnds() throws {
        var broadcaster = broadcaster()
        let id = try open(&broadcaster)
        #expect(broadcaster.next(id, waiter: 1) == .suspend)
        #expect(broadcaster.next(id, waiter: 2) == .end)
        #expect(texts(publish(1, into: &broadcaster)).map(\.0) == [1])
    }

    @Test("given two streams, one waiting, when finished then the waiting one is ended, both end, and new ones end at once")
    func finish() throws {
        var broadcaster = broadcaster()
        let waiting = try open(&broadcaster)
        let busy = try open(&broadcaster)
        _ = broadcaster.next(waiting, waiter: 3)
        #expect(broadcaster.finish() == [3])
        #expect(broadcaster.next(busy, waiter: 4) == .end)
        #expect(broadcaster.subscribe(after: nil, now: 0) == .finished)
        #expect(broadcaster.streamCount == 0)
    }

    // MARK: Keep-alive

    @Test("given a waiting stream opened at 0 when 15 s pass without events then it gets one keep-alive, and the next only 15 s later")
    func keepAliveAfterQuiet() throws {
        var broadcaster = broadcaster()
        let id = try open(&broadcaster, now: 0)
        #expect(broadcaster.next(id, waiter: 1) == .suspend)
        #expect(broadcaster.keepAlive(now: 14_999).isEmpty)
        #expect(texts(broadcaster.keepAlive(now: 15_000)).map(\.1) == [": keep-alive\n\n"])
        #expect(broadcaster.next(id, waiter: 2) == .suspend)
        #expect(broadcaster.keepAlive(now: 29_999).isEmpty)
        #expect(texts(broadcaster.keepAlive(now: 30_000)).map(\.0) == [2])
    }

    @Test("given an event at 10 s when keep-alives are checked then the quiet time counts from that event")
    func eventDelaysKeepAlive() throws {
        var broadcaster = broadcaster()
        let id = try open(&broadcaster, now: 0)
        _ = publish(1, into: &broadcaster, now: 10_000)
        #expect(text(broadcaster.next(id, waiter: 1)) == Self.event(1))
        #expect(broadcaster.next(id, waiter: 2) == .suspend)
        #expect(broadcaster.keepAlive(now: 24_999).isEmpty)
        #expect(texts(broadcaster.keepAlive(now: 25_000)).map(\.0) == [2])
    }

    @Test("given a stream between reads when a keep-alive falls due then its next read gets it; a stream with events waiting gets none")
    func keepAliveQueued() throws {
        var broadcaster = broadcaster()
        let idle = try open(&broadcaster, now: 0)
        #expect(broadcaster.keepAlive(now: 15_000).isEmpty)
        #expect(text(broadcaster.next(idle, waiter: 1)) == ": keep-alive\n\n")
        #expect(broadcaster.next(idle, waiter: 2) == .suspend)

        var other = self.broadcaster()
        let behind = try open(&other, now: 0)
        _ = publish(1, into: &other, now: 0)
        _ = other.keepAlive(now: 20_000)
        #expect(text(other.next(behind, waiter: 1)) == Self.event(1))
    }
}
