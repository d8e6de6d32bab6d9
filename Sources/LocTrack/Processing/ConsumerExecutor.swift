import Synchronization
import LocTrackSystem

/// Runs a program's consumers of fixes on one thread of its own, and on a session's reader
/// thread when that thread has just resumed them and would sleep anyway: at 1 Hz, one
/// thread wakes per fix instead of two, and none while the watch is quiet.
///
/// Whoever builds the pipeline chooses this, in two places that name the executor:
///
/// ```swift
/// let executor = ConsumerExecutor()
/// let session = GPSDSession(source: source, consumersRunOn: executor)
/// Task(executorPreference: executor) {
///     defer { executor.stop() }
///     for try await fix in session.fixes() { … }   // the consumer runs on `executor`
/// }
/// executor.run()   // this thread (the main thread, say) runs the jobs until stop()
/// ```
///
/// `loctrack`'s command line is built this way: `CLI.runBlocking` runs every command's
/// task on one executor on the main thread, and gives it to every session it makes.
///
/// **Where jobs run.** On the thread that calls ``run()`` (the owner), one at a time and in
/// the order they were enqueued; the owner sleeps on a semaphore (one futex call each way)
/// while there is nothing to do, so no periodic wake-up, and no thread of libdispatch's
/// pool (whose monitor, once started, wakes every second for the life of the process).
/// The one exception: the reader thread of a session built with this executor lends
/// itself just before it sleeps in `poll()`, for as long as it hands its batch to the
/// serial processor. A job that this hand-off enqueues (the resumption of a consumer
/// waiting in `next()`), from that thread, while the owner sleeps with nothing queued,
/// runs at once on the reader thread, and the owner is not woken: the fix costs one
/// wake-up, the reader's, and skips the queue and the semaphore. Every other job (from
/// another thread, from a reader with more to read, which lends nothing, or while the
/// owner is busy or has jobs queued) goes to the owner. Jobs still run one at a time and
/// in order: while a lent thread runs a job, the owner is not woken, and what was enqueued
/// meanwhile (or a ``stop()``) wakes it once that job is done. Which threads are lent is
/// this executor's own state, behind its lock: no thread-local flag.
///
/// **What the reader pays.** A lent job is the reader's time: the consumer's task runs on
/// the reader thread until its next suspension (an `await` that waits), and the reader
/// reads gpsd's socket again only after that. Meanwhile gpsd's reports wait in the
/// kernel's socket buffers, as they do under backpressure. A consumer that waits by
/// suspending gives the thread back at once; one that blocks (a synchronous `fdatasync`)
/// holds the reader for as long. docs/library.md, "One wake-up per fix, by design".
public final class ConsumerExecutor: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        /// The owner sleeps in `sem_wait` and must be woken for a new job.
        var sleeping = false
        /// A lent thread is running a job: the owner stays asleep until it is done.
        var borrowed = false
        var stopped = false
        /// The threads inside ``ConsumerExecutor/lendCurrentThread(_:)`` now: reader threads
        /// that have drained gpsd's socket and are handing on their batch before they sleep.
        var lenders: [ThreadIdentity] = []

        /// Whether the owner must be woken now: it sleeps, no lent thread runs a job, and it
        /// has something to do. Marks it awake when so.
        mutating func takeWakeUp() -> Bool {
            guard sleeping, !borrowed, !jobs.isEmpty || stopped else { return false }
            sleeping = false
            return true
        }
    }

    private let state = Mutex(State())
    /// A futex-backed semaphore: one system call to sleep and one to wake (a pipe needs
    /// poll() and read() to sleep), on a path taken once per fix when nothing is lent.
    private let wakeUp = Semaphore()
    /// The tests' seam: called on the owner each time it is about to sleep (its state
    /// already says so), so that they can lend a thread to a sleeping owner without timing.
    private let ownerWillSleep: (@Sendable () -> Void)?

    /// An executor with no thread yet: the thread that calls ``run()`` becomes its owner.
    public convenience init() {
        self.init(ownerWillSleep: nil)
    }

    init(ownerWillSleep: (@Sendable () -> Void)?) {
        self.ownerWillSleep = ownerWillSleep
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let caller = ThreadIdentity.current
        let (runHere, wake) = state.withLock { state -> (Bool, Bool) in
            if state.sleeping, !state.borrowed, state.jobs.isEmpty, state.lenders.contains(caller) {
                state.borrowed = true
                return (true, false)
            }
            state.jobs.append(job)
            return (false, state.takeWakeUp())
        }
        if wake { wakeUp.signal() }
        guard runHere else { return }
        job.runSynchronously(on: asUnownedTaskExecutor())
        // What was enqueued meanwhile (or a stop) is the owner's.
        let wakeAfter = state.withLock { state -> Bool in
            state.borrowed = false
            return state.takeWakeUp()
        }
        if wakeAfter { wakeUp.signal() }
    }

    /// Runs jobs on the calling thread, which sleeps while there are none, until ``stop()``.
    /// One thread at a time runs it.
    public func run() {
        while true {
            let (jobs, stopped) = state.withLock { state -> ([UnownedJob], Bool) in
                if state.jobs.isEmpty { state.sleeping = !state.stopped }
                defer { state.jobs.removeAll(keepingCapacity: true) }
                return (state.jobs, state.stopped)
            }
            if jobs.isEmpty {
                if stopped { return }
                ownerWillSleep?()
                wakeUp.wait()
                continue
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// Makes ``run()`` return once the jobs enqueued so far have run. Jobs enqueued after
    /// that never run.
    public func stop() {
        let wake = state.withLock { state -> Bool in
            state.stopped = true
            return state.takeWakeUp()
        }
        if wake { wakeUp.signal() }
    }

    /// Runs `body` with the calling thread lent to this executor: a job that `body`
    /// enqueues from this thread may run here and now (see the type's documentation).
    ///
    /// The reader thread of a session built with this executor calls it around its
    /// hand-off to the serial processor, when gpsd's socket is drained and the thread
    /// would sleep next. The lender's contract: it holds no lock (the job may take any
    /// lock, the lender's own included), and nothing it does next is urgent.
    func lendCurrentThread(_ body: () -> Void) {
        let thread = ThreadIdentity.current
        let added = state.withLock { state -> Bool in
            if state.lenders.contains(thread) { return false }  // already lent: an inner call
            state.lenders.append(thread)
            return true
        }
        body()
        guard added else { return }
        state.withLock { state in
            if let index = state.lenders.firstIndex(of: thread) { state.lenders.remove(at: index) }
        }
    }
}
