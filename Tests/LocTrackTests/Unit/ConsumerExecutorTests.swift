@testable import LocTrack
import LocTrackSystem
import LocTrackTestSupport
import Synchronization
import Testing

/// The consumer executor: which thread runs a job, in which order, and when ``run()`` ends.
///
/// Every scenario runs on threads of its own (an owner that calls `run()`, the scenario's
/// thread that lends itself or not), sequenced with semaphores and continuations: a consumer
/// is a task that prefers the executor and waits on a continuation, and resuming that
/// continuation from a thread enqueues its job from that thread, as the reader's hand-off
/// to the serial processor does. Nothing is timed.
@Suite("Consumer executor", .timeLimit(.minutes(1)))
struct ConsumerExecutorTests {
    /// Values handed from one thread to another; `take()` sleeps until one is there.
    final class Mailbox<Value: Sendable>: Sendable {
        private let values = Mutex<[Value]>([])
        private let arrived = Semaphore()

        func put(_ value: Value) {
            values.withLock { $0.append(value) }
            arrived.signal()
        }

        func take() -> Value {
            arrived.wait()
            return values.withLock { $0.removeFirst() }
        }
    }

    /// An executor, its owner thread, and a count of the owner's sleeps.
    final class Owner: Sendable {
        let executor: ConsumerExecutor
        /// The owner's sleeps: `semaphore` is signalled each time it is about to sleep (its
        /// state already says so), `count` counts them.
        final class Sleeps: Sendable {
            let semaphore = Semaphore()
            let count = Mutex(0)
        }

        private let counted: Sleeps
        private let thread = Mailbox<ThreadIdentity>()
        private let ended = Semaphore()

        init() {
            let counted = Sleeps()
            self.counted = counted
            executor = ConsumerExecutor(ownerWillSleep: {
                counted.count.withLock { $0 += 1 }
                counted.semaphore.signal()
            })
        }

        /// Sleeps until the owner goes to sleep once more.
        func waitForSleep() { counted.semaphore.wait() }

        /// How many times the owner has gone to sleep.
        var sleepsSoFar: Int { counted.count.withLock { $0 } }

        /// Starts the owner thread: it runs the executor until `stop()`.
        func start() throws -> ThreadIdentity {
            try startThread(named: "test-owner") { [self] in
                thread.put(.current)
                executor.run()
                ended.signal()
            }
            return thread.take()
        }

        /// Stops the executor and waits for `run()` to return.
        func stopAndWait() {
            executor.stop()
            ended.wait()
        }
    }

    /// A consumer: a task that prefers `executor`, hands out its continuation and, once
    /// resumed, records `name` with the thread it runs on.
    static func consumer(
        _ name: String, on executor: ConsumerExecutor, handsOut waiting: Mailbox<CheckedContinuation<Void, Never>>,
        records log: Mailbox<(String, ThreadIdentity)>
    ) {
        Task(executorPreference: executor) {
            await withCheckedContinuation { waiting.put($0) }
            log.put((name, .current))
        }
    }

    /// Runs `body` on a thread of its own (it may block), within 20 s.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Task {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
                do {
                    try startThread(named: "test-scenario") { done.resume(with: Result { try body() }) }
                } catch {
                    done.resume(throwing: error)
                }
            }
        }.value(within: .seconds(20), "the scenario")
    }

    @Test("given the owner sleeps with nothing queued when a lent thread resumes a consumer then the job runs on that thread and the owner is not woken")
    func lentThreadRunsTheJob() async throws {
        let (ranOn, lender, ownerThread, sleeps) = try await Self.onThread {
            let owner = Owner()
            let waiting = Mailbox<CheckedContinuation<Void, Never>>()
            let log = Mailbox<(String, ThreadIdentity)>()
            Self.consumer("a", on: owner.executor, handsOut: waiting, records: log)
            let ownerThread = try owner.start()
            owner.waitForSleep()  // the consumer ran up to its await on the owner, which now sleeps
            let consumer = waiting.take()
            var ranDuringLend = false
            owner.executor.lendCurrentThread {
                consumer.resume()
                ranDuringLend = true
            }
            let (_, ranOn) = log.take()
            owner.stopAndWait()
            #expect(ranDuringLend)
            return (ranOn, ThreadIdentity.current, ownerThread, owner.sleepsSoFar)
        }
        #expect(ranOn == lender)
        #expect(ranOn != ownerThread)
        #expect(sleeps == 1, "the owner slept once, until the stop: the lent job did not wake it")
    }

    @Test("given a thread is lent when another thread resumes a consumer then the job runs on the owner")
    func otherThreadsEnqueueToTheOwner() async throws {
        let (ranOn, ownerThread, lender, resumer) = try await Self.onThread {
            let owner = Owner()
            let waiting = Mailbox<CheckedContinuation<Void, Never>>()
            let log = Mailbox<(String, ThreadIdentity)>()
            Self.consumer("a", on: owner.executor, handsOut: waiting, records: log)
            let ownerThread = try owner.start()
            owner.waitForSleep()
            let consumer = waiting.take()
            // A reader lends itself and stays lent while this thread, not lent, resumes the consumer.
            let lent = Mailbox<ThreadIdentity>()
            let release = Semaphore()
            try startThread(named: "test-lender") {
                owner.executor.lendCurrentThread {
                    lent.put(.current)
                    release.wait()
                }
            }
            let lender = lent.take()
            consumer.resume()
            let (_, ranOn) = log.take()
            release.signal()
            owner.stopAndWait()
            return (ranOn, ownerThread, lender, ThreadIdentity.current)
        }
        #expect(ranOn == ownerThread)
        #expect(ranOn != lender)
        #expect(ranOn != resumer)
    }

    @Test("given the owner is busy when a lent thread resumes two consumers then both run on the owner, in order")
    func busyOwnerRunsLentJobsInOrder() async throws {
        let (log, ownerThread) = try await Self.onThread {
            let owner = Owner()
            let waiting = Mailbox<CheckedContinuation<Void, Never>>()
            let log = Mailbox<(String, ThreadIdentity)>()
            Self.consumer("a", on: owner.executor, handsOut: waiting, records: log)
            Self.consumer("b", on: owner.executor, handsOut: waiting, records: log)
            // A third task keeps the owner busy until the consumers have been resumed.
            let busy = Semaphore()
            let gate = Semaphore()
            Task(executorPreference: owner.executor) {
                busy.signal()
                gate.wait()
            }
            let ownerThread = try owner.start()
            let (a, b) = (waiting.take(), waiting.take())
            busy.wait()
            owner.executor.lendCurrentThread {
                a.resume()
                b.resume()
            }
            gate.signal()
            let entries = [log.take(), log.take()]
            owner.stopAndWait()
            return (entries, ownerThread)
        }
        #expect(log.map(\.0) == ["a", "b"])
        #expect(log.allSatisfy { $0.1 == ownerThread })
    }

    @Test("given a lent thread runs a job when another consumer is resumed meanwhile then it runs on the owner after that job")
    func jobsWaitForTheLentOne() async throws {
        let (log, ownerThread, lender) = try await Self.onThread {
            let owner = Owner()
            let waiting = Mailbox<CheckedContinuation<Void, Never>>()
            let log = Mailbox<(String, ThreadIdentity)>()
            let resumedB = Semaphore()
            // "a", run on the lent thread, has "b" resumed from another thread, then finishes.
            Task(executorPreference: owner.executor) {
                typealias Resumer = CheckedContinuation<Void, Never>
                let b = await withCheckedContinuation { (start: CheckedContinuation<Resumer, Never>) in
                    Task(executorPreference: owner.executor) {
                        await withCheckedContinuation { start.resume(returning: $0) }
                        log.put(("b", .current))
                    }
                }
                await withCheckedContinuation { waiting.put($0) }
                try? startThread(named: "test-resumer") {
                    b.resume()
                    resumedB.signal()
                }
                resumedB.wait()
                log.put(("a", .current))
            }
            let ownerThread = try owner.start()
            let a = waiting.take()
            owner.waitForSleep()  // after "a" handed out its continuation: the first sleep comes after it
            owner.executor.lendCurrentThread { a.resume() }
            let entries = [log.take(), log.take()]
            owner.stopAndWait()
            return (entries, ownerThread, ThreadIdentity.current)
        }
        #expect(log.map(\.0) == ["a", "b"])
        #expect(log[0].1 == lender)
        #expect(log[1].1 == ownerThread)
    }

    @Test("given jobs are queued and stop() was called when run() starts then it runs them all, then returns")
    func stopRunsQueuedJobsFirst() async throws {
        let log = try await Self.onThread {
            let executor = ConsumerExecutor()
            let log = Mailbox<Int>()
            for k in 1...3 {
                Task(executorPreference: executor) { log.put(k) }
            }
            executor.stop()
            executor.run()  // returns: nothing else would stop it
            return [log.take(), log.take(), log.take()]
        }
        #expect(log == [1, 2, 3])
    }
}
