@testable import LocTrack
import LocTrackTestSupport
import Testing

/// The serial processor's pure state machine: what it queues, delivers, drops,
/// and asks of the reader (pause, resume, stop), read from the actions it returns.
@Suite("Serial processor state", .timeLimit(.minutes(1)))
struct SerialProcessorTests {
    typealias State = SerialProcessorState

    static func fix(_ k: Int, device: String = "/dev/a") -> Fix { Reports.fix(k, device: device) }
    static func fixes(_ epochs: some Sequence<Int>) -> [ReaderEvent] { epochs.map { .fix(fix($0)) } }
    static func events(_ epochs: some Sequence<Int>) -> [GPSDEvent] { epochs.map { .fix(fix($0)) } }
    static let status = GPSDStatus.noFixes(seconds: 5)
    static let lost = LocTrackError(.connectionLost, reason: "gpsd closed the connection")

    static func options(
        _ policy: FixBufferingPolicy = .default, statuses: Bool = true, provisional: Bool = false, latest: Duration? = nil
    ) -> SubscriberOptions {
        SubscriberOptions(bufferingPolicy: policy, includesStatuses: statuses, includesProvisionalFixes: provisional,
                          latestNoOlderThan: latest)
    }
}

/// A consumer task suspended on a real continuation: the waiter the state keeps.
struct ParkedConsumer {
    let waiter: SerialProcessorState.Waiter
    let delivery: Task<SerialProcessorState.Delivery, Never>

    static func park() async -> ParkedConsumer {
        let (waiters, handOut) = AsyncStream.makeStream(of: SerialProcessorState.Waiter.self)
        let task = Task { await withUnsafeContinuation { handOut.yield($0) } }
        var iterator = waiters.makeAsyncIterator()
        return ParkedConsumer(waiter: await iterator.next()!, delivery: task)
    }

    /// What the state resumed this consumer with (only after the returned resumption is applied).
    var delivered: Outcome { get async throws { Outcome(try await delivery.value(within: .seconds(5), "the delivery")) } }
}

/// A ``SerialProcessorState/Delivery`` in a comparable form.
enum Outcome: Equatable {
    case events([GPSDEvent]), end, failure(LocTrackError)

    init(_ delivery: SerialProcessorState.Delivery) {
        switch delivery {
        case .events(let events): self = .events(events)
        case .end: self = .end
        case .failure(let error): self = .failure(error)
        }
    }
}

extension SerialProcessorState {
    /// The consumer `id` asks, as its iterator does: parks a consumer, calls `next`, and
    /// applies an immediate resumption. Returns the consumer, whether it was resumed
    /// at once, and what the reader must do.
    mutating func ask(_ id: UInt64, acknowledging acknowledged: Int = 0) async
        -> (consumer: ParkedConsumer, answered: Bool, reader: ReaderAction) {
        let consumer = await ParkedConsumer.park()
        let (resumption, reader) = next(id, acknowledging: acknowledged, waiter: consumer.waiter)
        if let (waiter, delivery) = resumption { waiter.resume(returning: delivery) }
        return (consumer, resumption != nil, reader)
    }

    /// What the consumer `id` gets when it asks now (it must have something).
    mutating func take(_ id: UInt64, acknowledging acknowledged: Int = 0) async throws -> Outcome? {
        let (consumer, answered, _) = await ask(id, acknowledging: acknowledged)
        guard answered else {
            _ = remove(id)  // resumes nobody: the parked consumer is released below
            consumer.waiter.resume(returning: .end)
            return nil
        }
        return try await consumer.delivered
    }
}

extension [(SerialProcessorState.Waiter, SerialProcessorState.Delivery)] {
    func resumeAll() { for (waiter, delivery) in self { waiter.resume(returning: delivery) } }
}

// MARK: Order and batches

extension SerialProcessorTests {
    @Test("given batches queued for a consumer that is not waiting when it asks then it gets them all at once, in order")
    func orderKeptAcrossBatches() async throws {
        var state = State()
        let id = state.add(Self.options())!
        #expect(state.submit(Self.fixes(0..<2)).resumptions.isEmpty)
        #expect(state.submit([.status(Self.status), .fix(Self.fix(2))]).resumptions.isEmpty)
        #expect(state.submit(Self.fixes(3..<4)).resumptions.isEmpty)
        #expect(try await state.take(id) == .events(Self.events(0..<2) + [.status(Self.status)] + Self.events(2..<4)))
    }

    @Test("given a waiting consumer when a batch is submitted then it is resumed once with the whole batch")
    func batchDeliveredWhole() async throws {
        var state = State()
        let id = state.add(Self.options())!
        let (consumer, answered, reader) = await state.ask(id)
        #expect(!answered && reader == .none)
        let (resumptions, action) = state.submit(Self.fixes(0..<5))
        #expect(resumptions.count == 1 && action == .none)
        resumptions.resumeAll()
        #expect(try await consumer.delivered == .events(Self.events(0..<5)))
        // It has not asked again: the next batch waits for it.
        #expect(state.submit(Self.fixes(5..<6)).resumptions.isEmpty)
        #expect(try await state.take(id, acknowledging: 5) == .events(Self.events(5..<6)))
    }

    @Test("given two waiting consumers when fixes are submitted then each gets every fix")
    func everyConsumerGetsEveryFix() async throws {
        var state = State()
        let first = state.add(Self.options())!
        let second = state.add(Self.options(.unbounded, statuses: false))!
        #expect(first != second)
        let a = await state.ask(first)
        let b = await state.ask(second)
        let (resumptions, _) = state.submit(Self.fixes(0..<3))
        #expect(resumptions.count == 2)
        resumptions.resumeAll()
        #expect(try await a.consumer.delivered == .events(Self.events(0..<3)))
        #expect(try await b.consumer.delivered == .events(Self.events(0..<3)))
    }

    @Test("given consumers with and without statuses when statuses are submitted then only those that include them get them")
    func statusesOnlyToThoseWhoWantThem() async throws {
        var state = State()
        let events = state.add(Self.options(statuses: true))!
        let fixes = state.add(Self.options(statuses: false))!
        _ = state.submit([.fix(Self.fix(0)), .status(Self.status), .fix(Self.fix(1)), .status(.fixesResumed)])
        #expect(try await state.take(events) == .events([.fix(Self.fix(0)), .status(Self.status), .fix(Self.fix(1)), .status(.fixesResumed)]))
        #expect(try await state.take(fixes) == .events(Self.events(0..<2)))
        // A batch of statuses only wakes nobody who does not want them.
        let waiting = await state.ask(fixes, acknowledging: 2)
        #expect(!waiting.answered)
        #expect(state.submit([.status(Self.status)]).resumptions.isEmpty)
        state.submit(Self.fixes(2..<3)).resumptions.resumeAll()
        #expect(try await waiting.consumer.delivered == .events(Self.events(2..<3)))
    }

    @Test("given a provisional fix when submitted then only consumers that asked for provisional fixes get it")
    func provisionalOnlyToThoseWhoAsked() async throws {
        var state = State()
        let once = state.add(Self.options(provisional: true))!
        let stream = state.add(Self.options())!
        let early = Reports.fix(0, mode: 2)
        _ = state.submit([.provisional(early), .fix(Self.fix(0))])
        #expect(try await state.take(once) == .events([.fix(early), .fix(Self.fix(0))]))
        #expect(try await state.take(stream) == .events(Self.events(0..<1)))
    }
}

// MARK: Backpressure and dropping

extension SerialProcessorTests {
    @Test("given bounded(4) when 4 events wait, counting those taken but not acknowledged, then the reader pauses, and resumes at 2")
    func boundedPausesAndResumes() async throws {
        var state = State()
        let id = state.add(Self.options(.bounded(4)))!
        #expect(state.submit(Self.fixes(0..<2)).reader == .none)
        // The iterator takes 2 and acknowledges none yet: they still count.
        #expect(try await state.take(id) == .events(Self.events(0..<2)))
        #expect(state.submit(Self.fixes(2..<3)).reader == .none)  // 3 waiting
        #expect(state.submit(Self.fixes(3..<4)).reader == .pause)  // 4 waiting: 2 queued + 2 outstanding
        #expect(state.readerPaused)
        #expect(state.submit(Self.fixes(4..<5)).reader == .none)  // already paused: said once
        // Acknowledging 1 leaves 4 waiting (3 queued + 1 outstanding): still paused. It takes the 3.
        let first = await state.ask(id, acknowledging: 1)
        #expect(first.answered && first.reader == .none)
        #expect(try await first.consumer.delivered == .events(Self.events(2..<5)))
        // 4 outstanding. Acknowledging 1 leaves 3 (> 4/2): still paused.
        let second = await state.ask(id, acknowledging: 1)
        #expect(!second.answered && second.reader == .none && state.readerPaused)
        _ = state.remove(id)
        second.consumer.waiter.resume(returning: .end)
    }

    @Test("given bounded(4) with 4 outstanding when the consumer acknowledges down to 2 then the reader resumes")
    func boundedResumesAtHalf() async throws {
        var state = State()
        let id = state.add(Self.options(.bounded(4)))!
        #expect(state.submit(Self.fixes(0..<4)).reader == .pause)
        #expect(try await state.take(id) == .events(Self.events(0..<4)))
        let behind = await state.ask(id, acknowledging: 1)  // 3 waiting, all outstanding
        #expect(!behind.answered && behind.reader == .none && state.readerPaused)
        let (resumptions, reader) = state.submit(Self.fixes(4..<5))  // delivered at once: 4 outstanding
        #expect(reader == .none)
        resumptions.resumeAll()
        #expect(try await behind.consumer.delivered == .events(Self.events(4..<5)))
        let caughtUp = await state.ask(id, acknowledging: 2)  // 2 waiting: half the limit
        #expect(!caughtUp.answered && caughtUp.reader == .resume)
        #expect(!state.readerPaused)
        #expect(state.submit(Self.fixes(5..<6)).reader == .none)
        _ = state.remove(id)
    }

    @Test("given an unbounded consumer when thousands of events wait then the reader is never paused")
    func unboundedNeverPauses() {
        var state = State()
        _ = state.add(Self.options(.unbounded))!
        for k in 0..<50 { #expect(state.submit(Self.fixes((k * 100)..<(k * 100 + 100))).reader == .none) }
        #expect(!state.readerPaused)
    }

    @Test("given bufferingNewest(3) when more than 3 events queue then the oldest queued are dropped, and the reader never pauses")
    func bufferingNewestDropsOldest() async throws {
        var state = State()
        let id = state.add(Self.options(.bufferingNewest(3)))!
        #expect(state.submit(Self.fixes(0..<5)).reader == .none)
        #expect(state.subscribers[id]?.dropped == 2)
        #expect(try await state.take(id) == .events(Self.events(2..<5)))
        // While the consumer works through those 3, 4 more arrive: the newest 3 of them wait.
        #expect(state.submit(Self.fixes(5..<9)).reader == .none)
        #expect(state.subscribers[id]?.dropped == 3)
        #expect(!state.readerPaused)
        #expect(try await state.take(id, acknowledging: 3) == .events(Self.events(6..<9)))
    }

    @Test("given bufferingNewest(1) when fixes arrive while the consumer handles one then the newest waits for it")
    func bufferingNewestOneKeepsTheLatest() async throws {
        var state = State()
        let id = state.add(Self.options(.bufferingNewest(1)))!
        _ = state.submit(Self.fixes(0..<1))
        #expect(try await state.take(id) == .events(Self.events(0..<1)))
        for k in 1..<4 { _ = state.submit(Self.fixes(k..<(k + 1))) }
        #expect(try await state.take(id, acknowledging: 1) == .events(Self.events(3..<4)))
        #expect(state.subscribers[id]?.dropped == 2)
    }

    @Test("given bufferingOldest(3) when more than 3 events queue then the newest queued are dropped")
    func bufferingOldestDropsNewest() async throws {
        var state = State()
        let id = state.add(Self.options(.bufferingOldest(3)))!
        #expect(state.submit(Self.fixes(0..<5)).reader == .none)
        #expect(state.subscribers[id]?.dropped == 2)
        #expect(try await state.take(id) == .events(Self.events(0..<3)))
        // While the consumer works through those 3, 4 more arrive: the oldest 3 of them wait.
        _ = state.submit(Self.fixes(5..<9))
        #expect(state.subscribers[id]?.dropped == 3)
        #expect(try await state.take(id, acknowledging: 3) == .events(Self.events(5..<8)))
    }

    @Test("given bufferingOldest(1) when fixes arrive while the consumer handles one then the first of them waits for it")
    func bufferingOldestOneKeepsTheNext() async throws {
        var state = State()
        let id = state.add(Self.options(.bufferingOldest(1)))!
        _ = state.submit(Self.fixes(0..<1))
        #expect(try await state.take(id) == .events(Self.events(0..<1)))
        for k in 1..<4 { _ = state.submit(Self.fixes(k..<(k + 1))) }
        #expect(try await state.take(id, acknowledging: 1) == .events(Self.events(1..<2)))
    }

    @Test("given bufferingNewest(3) with 2 taken and acknowledged when 4 arrive then the newest 3 are kept")
    func bufferingNewestAfterAcknowledging() async throws {
        var state = State()
        let id = state.add(Self.options(.bufferingNewest(3)))!
        _ = state.submit(Self.fixes(0..<2))
        #expect(try await state.take(id) == .events(Self.events(0..<2)))
        let waiting = await state.ask(id, acknowledging: 2)
        #expect(!waiting.answered)
        let (resumptions, _) = state.submit(Self.fixes(2..<6))
        resumptions.resumeAll()
        #expect(try await waiting.consumer.delivered == .events(Self.events(3..<6)))
    }
}

// MARK: The end

extension SerialProcessorTests {
    @Test("given queued events when the reader ends then the consumer gets the events first, then the end, and no one can subscribe")
    func endComesAfterQueuedEvents() async throws {
        var state = State()
        let id = state.add(Self.options())!
        _ = state.submit(Self.fixes(0..<2) + [.ended])
        #expect(state.isClosed)
        #expect(state.add(Self.options()) == nil)
        #expect(try await state.take(id) == .events(Self.events(0..<2)))
        #expect(try await state.take(id, acknowledging: 2) == .end)
        #expect(state.subscribers.isEmpty)
    }

    @Test("given queued events when the reader fails then the consumer gets the events first, then the failure")
    func failureComesAfterQueuedEvents() async throws {
        var state = State()
        let id = state.add(Self.options())!
        _ = state.submit(Self.fixes(0..<1))
        _ = state.submit([.status(Self.status), .failed(Self.lost), .fix(Self.fix(9))])
        #expect(try await state.take(id) == .events([.fix(Self.fix(0)), .status(Self.status), .fix(Self.fix(9))]))
        #expect(try await state.take(id, acknowledging: 3) == .failure(Self.lost))
    }

    @Test("given a waiting consumer with nothing queued when the reader fails then it is resumed with the failure")
    func waitingConsumerGetsTheFailure() async throws {
        var state = State()
        let id = state.add(Self.options())!
        let waiting = await state.ask(id)
        let (resumptions, _) = state.submit([.failed(Self.lost)])
        #expect(resumptions.count == 1)
        resumptions.resumeAll()
        #expect(try await waiting.consumer.delivered == .failure(Self.lost))
    }

    @Test("given two consumers when both leave then only the last one stops the reader, and the processor closes")
    func lastConsumerStopsTheReader() {
        var state = State()
        let first = state.add(Self.options())!
        let second = state.add(Self.options())!
        #expect(state.remove(first).reader == .none)
        #expect(!state.isClosed)
        #expect(state.remove(second).reader == .stop)
        #expect(state.isClosed)
        #expect(state.add(Self.options()) == nil)
        #expect(state.remove(second).reader == .none)  // twice: nothing more
    }

    @Test("given a consumer waiting when it is removed then its waiter is handed back, and the processor resumes it with end")
    func removedWhileWaiting() async throws {
        var state = State()
        let id = state.add(Self.options())!
        let waiting = await state.ask(id)
        let (waiter, reader) = state.remove(id)
        #expect(reader == .stop)
        #expect(waiter != nil)
        waiter?.resume(returning: .end)
        #expect(try await waiting.consumer.delivered == .end)
        // A removed consumer that asks again ends at once.
        #expect(try await state.take(id) == .end)
    }

    @Test("given the slow consumer of a paused reader when it leaves then the reader resumes for the others")
    func leavingConsumerResumesTheReader() async throws {
        var state = State()
        let slow = state.add(Self.options(.bounded(2)))!
        _ = state.add(Self.options(.unbounded))!
        #expect(state.submit(Self.fixes(0..<2)).reader == .pause)
        #expect(state.remove(slow).reader == .resume)
        #expect(!state.readerPaused)
    }

    @Test("given a SerialProcessor when its only consumer's task is cancelled while waiting then it gets end and the reader is asked to stop")
    func cancellationEndsAndStops() async throws {
        let control = try ReaderControl()
        let processor = SerialProcessor(reader: control)
        let id = processor.add(Self.options())!
        let consumer = Task { await processor.next(id, acknowledging: 0) }
        consumer.cancel()
        #expect(Outcome(try await consumer.value(within: .seconds(5), "the consumer")) == .end)
        #expect(control.stopRequest == .immediately)
        #expect(processor.subscriberCount == 0)
        #expect(processor.add(Self.options()) == nil)
    }
}

// MARK: Polled fixes

extension SerialProcessorTests {
    static let gpsdTime = Timestamp(seconds: 1_800_000_000)

    static func polled(_ offset: Double, device: String) -> Fix {
        let nanoseconds = Int64((offset * 1e9).rounded())
        return Reports.fix(0, device: device, time: Timestamp(
            seconds: gpsdTime.seconds + nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000).quotient,
            nanoseconds: Int32(nanoseconds % 1_000_000_000)))
    }

    @Test("given a consumer that asked for the latest fix when gpsd's POLL reply comes then its fresh fixes come oldest first; stale, future and later replies never")
    func polledFixes() async throws {
        var state = State()
        let asked = state.add(Self.options(latest: .seconds(2)))!
        let other = state.add(Self.options())!
        let newer = Self.polled(-0.5, device: "/dev/a")
        let older = Self.polled(-1.5, device: "/dev/b")
        let edge = Self.polled(-2, device: "/dev/c")  // exactly the maximum age
        let stale = Self.polled(-2.5, device: "/dev/d")
        let soon = Self.polled(0.75, device: "/dev/e")  // a receiver a little ahead of gpsd's clock
        let future = Self.polled(5, device: "/dev/f")  // a receiver with a wrong clock
        _ = state.submit([.polled([newer, stale, future, soon, older, edge], gpsdTime: Self.gpsdTime), .fix(Self.fix(1))])
        #expect(try await state.take(asked) == .events([.fix(edge), .fix(older), .fix(newer), .fix(soon), .fix(Self.fix(1))]))
        #expect(try await state.take(other) == .events(Self.events(1..<2)))
        // Only the first reply is the consumer's start.
        _ = state.submit([.polled([newer], gpsdTime: Self.gpsdTime), .fix(Self.fix(2))])
        #expect(try await state.take(asked, acknowledging: 5) == .events(Self.events(2..<3)))
    }

    @Test("given a POLL reply without gpsd's time when it comes then no polled fix is fresh")
    func polledWithoutClock() async throws {
        var state = State()
        let asked = state.add(Self.options(latest: .seconds(2)))!
        _ = state.submit([.polled([Self.polled(-0.5, device: "/dev/a")], gpsdTime: nil), .fix(Self.fix(1))])
        #expect(try await state.take(asked) == .events(Self.events(1..<2)))
        #expect(!State.isFresh(Self.polled(0, device: "/dev/a"), gpsdTime: nil, maximumAge: .seconds(2)))
        #expect(State.isFresh(Self.polled(1, device: "/dev/a"), gpsdTime: Self.gpsdTime, maximumAge: .seconds(2)))
        #expect(!State.isFresh(Self.polled(1.001, device: "/dev/a"), gpsdTime: Self.gpsdTime, maximumAge: .seconds(2)))
        #expect(!State.isFresh(Self.polled(-2.001, device: "/dev/a"), gpsdTime: Self.gpsdTime, maximumAge: .seconds(2)))
    }
}
