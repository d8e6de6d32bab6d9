import LocTrack
import Synchronization
import LocTrackSystem
import LocTrackFormats
import LocTrackSinks

/// Runs loctrack's async code on the main thread, which would otherwise only wait,
/// or on the reader thread that has just resumed it, when that thread lends itself.
///
/// With Swift's default executor, every fix would wake a thread of libdispatch's
/// pool (and, on Linux, libdispatch wakes its pool monitor once a second for the
/// life of the process once anything has used it). Here the consumer of fixes runs
/// on this one thread, and a quiet watch costs no wake-up.
///
/// A job enqueued by a thread that is about to sleep anyway (``LentThread``: the reader,
/// after it drained gpsd's socket) while the main thread sleeps runs at once on that
/// thread: a fix then wakes one thread, not two, and skips the queue and the semaphore
/// (at 1 Hz, each fix finds the caches cold and pays for every line of code it runs;
/// docs/performance.md). Jobs still run one at a time and in order: a borrowed thread
/// runs a job only when the main thread sleeps with nothing queued, and the main thread
/// is not woken until the borrowed thread is done. In a flood the reader has more to
/// read, lends nothing, and the two threads work side by side as before.
/// The job queue is behind a Mutex; the semaphore is LocTrackSystem's.
final class MainThreadExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The main thread sleeps in `sem_wait` and must be woken for a new job.
        var sleeping = false
        /// A lent thread is running a job: the main thread stays asleep until it is done.
        var borrowed = false
        var stopped = false

        /// Whether the main thread must be woken now: it sleeps, no lent thread runs a job,
        /// and it has something to do. Marks it awake when so.
        mutating func takeWakeUp() -> Bool {
            guard sleeping, !borrowed, !jobs.isEmpty || stopped else { return false }
            sleeping = false
            return true
        }
    }

    private let queue = Mutex(Queue())
    /// A futex-backed semaphore: one system call to sleep and one to wake (a pipe
    /// needs poll() and read() to sleep), on a path taken once per fix.
    private let wakeUp = Semaphore()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let lent = LentThread.isLent
        let (runHere, wake) = queue.withLock { queue -> (Bool, Bool) in
            if lent, queue.sleeping, !queue.borrowed, queue.jobs.isEmpty {
                queue.borrowed = true
                return (true, false)
            }
            queue.jobs.append(job)
            return (false, queue.takeWakeUp())
        }
        if wake { wakeUp.signal() }
        guard runHere else { return }
        job.runSynchronously(on: asUnownedTaskExecutor())
        // What was enqueued meanwhile (or a stop) is the main thread's.
        let wakeAfter = queue.withLock { queue -> Bool in
            queue.borrowed = false
            return queue.takeWakeUp()
        }
        if wakeAfter { wakeUp.signal() }
    }

    /// Makes ``run()`` return once the jobs queued so far have run.
    func stop() {
        let wake = queue.withLock { queue -> Bool in
            queue.stopped = true
            return queue.takeWakeUp()
        }
        if wake { wakeUp.signal() }
    }

    /// Runs jobs on the calling thread until ``stop()``.
    func run() {
        while true {
            let (jobs, stopped) = queue.withLock { queue -> ([UnownedJob], Bool) in
                if queue.jobs.isEmpty { queue.sleeping = !queue.stopped }
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return (queue.jobs, queue.stopped)
            }
            if jobs.isEmpty {
                if stopped { return }
                wakeUp.wait()
                continue
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
