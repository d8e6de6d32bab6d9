import LocTrack
import Synchronization
import LocTrackSystem

/// Runs loctrack's async code on the main thread, which would otherwise only wait.
///
/// With Swift's default executor, every fix would wake a thread of libdispatch's
/// pool (and, on Linux, libdispatch wakes its pool monitor once a second for the
/// life of the process once anything has used it). Here the consumer of fixes runs
/// on this one thread: a fix costs two wake-ups, the reader thread's and this
/// one's, and a quiet watch costs none.
/// The job queue is behind a Mutex; the semaphore is LocTrackSystem's.
final class MainThreadExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The main thread sleeps in poll() and must be woken for a new job.
        var sleeping = false
        var stopped = false
    }

    private let queue = Mutex(Queue())
    /// A futex-backed semaphore: one system call to sleep and one to wake (a pipe
    /// needs poll() and read() to sleep), on a path taken once per fix.
    private let wakeUp = Semaphore()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wasSleeping = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        if wasSleeping { wakeUp.signal() }
    }

    /// Makes ``run()`` return once the jobs queued so far have run.
    func stop() {
        let wasSleeping = queue.withLock { queue in
            queue.stopped = true
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        if wasSleeping { wakeUp.signal() }
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
