import LocTrack
import Synchronization
import Testing

@Suite("Serial processor")
struct SerialProcessorTests {
    /// Records what the processor handed to `process`, in order.
    final class Recorder: Sendable {
        let values = Mutex<[Int]>([])
        func append(_ value: Int) { values.withLock { $0.append(value) } }
        var snapshot: [Int] { values.withLock { $0 } }
    }

    @Test("given 10,000 inputs from another thread when finished then all are processed once, in order",
          .timeLimit(.minutes(1)))
    func orderAndNoDrops() async {
        let recorder = Recorder()
        let processor = SerialProcessor<Int> { recorder.append($0) }
        let submitter = Task.detached {
            for value in 0..<10_000 { #expect(processor.submit(value) == .accepted) }
            processor.finish()
        }
        await submitter.value
        await processor.waitUntilDone()
        #expect(recorder.snapshot == Array(0..<10_000))
        #expect(processor.droppedCount == 0)
    }

    @Test("given a slow process when inputs arrive then they run one at a time",
          .timeLimit(.minutes(1)))
    func oneAtATime() async {
        let running = Atomic<Int>(0)
        let maximum = Atomic<Int>(0)
        let processor = SerialProcessor<Int> { _ in
            let now = running.add(1, ordering: .sequentiallyConsistent).newValue
            _ = maximum.max(now, ordering: .sequentiallyConsistent)
            try? await Task.sleep(for: .milliseconds(2))
            running.subtract(1, ordering: .sequentiallyConsistent)
        }
        for value in 0..<20 { processor.submit(value) }
        processor.finish()
        await processor.waitUntilDone()
        #expect(maximum.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test("given finish when more input is submitted then it is rejected",
          .timeLimit(.minutes(1)))
    func rejectedAfterFinish() async {
        let recorder = Recorder()
        let processor = SerialProcessor<Int> { recorder.append($0) }
        processor.submit(1)
        processor.finish()
        #expect(processor.submit(2) == .rejected)
        await processor.waitUntilDone()
        #expect(recorder.snapshot == [1])
    }

    @Test("given a blocked worker when cancelled then queued inputs are dropped and counted",
          .timeLimit(.minutes(1)))
    func cancelDropsBacklog() async {
        let recorder = Recorder()
        let gate = Gate()
        let processor = SerialProcessor<Int> { value in
            await gate.wait()
            recorder.append(value)
        }
        for value in 0..<5 { processor.submit(value) }
        while processor.backlog != 4 { await Task.yield() }  // the worker holds 0 at the gate
        processor.cancel()
        #expect(processor.backlog == 0)
        await gate.open()
        await processor.waitUntilDone()
        #expect(recorder.snapshot == [0])
        #expect(processor.droppedCount == 4)
    }

    @Test("given dropOldest(2) and a blocked worker when 5 arrive then the newest 2 waiting survive",
          .timeLimit(.minutes(1)))
    func dropOldest() async {
        let recorder = Recorder()
        let gate = Gate()
        let processor = SerialProcessor<Int>(bufferingPolicy: .dropOldest(limit: 2)) { value in
            await gate.wait()
            recorder.append(value)
        }
        processor.submit(0)
        while processor.backlog != 0 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(20))  // the worker took 0 and waits at the gate
        let results = (1...5).map { processor.submit($0) }
        #expect(results == [.accepted, .accepted, .droppedOne, .droppedOne, .droppedOne])
        processor.finish()
        await gate.open()
        await processor.waitUntilDone()
        #expect(recorder.snapshot == [0, 4, 5])
        #expect(processor.droppedCount == 3)
    }

    @Test("given dropNewest(2) and a blocked worker when 5 arrive then the oldest 2 waiting survive",
          .timeLimit(.minutes(1)))
    func dropNewest() async {
        let recorder = Recorder()
        let gate = Gate()
        let processor = SerialProcessor<Int>(bufferingPolicy: .dropNewest(limit: 2)) { value in
            await gate.wait()
            recorder.append(value)
        }
        processor.submit(0)
        try? await Task.sleep(for: .milliseconds(20))
        let results = (1...5).map { processor.submit($0) }
        #expect(results == [.accepted, .accepted, .droppedOne, .droppedOne, .droppedOne])
        processor.finish()
        await gate.open()
        await processor.waitUntilDone()
        #expect(recorder.snapshot == [0, 1, 2])
    }

    @Test("given an idle processor when finished then waitUntilDone returns", .timeLimit(.minutes(1)))
    func finishIdle() async {
        let processor = SerialProcessor<Int> { _ in }
        processor.finish()
        await processor.waitUntilDone()
        await processor.waitUntilDone()  // and again, after it is done
    }
}

/// Lets a test decide when a blocked `process` call may continue.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
