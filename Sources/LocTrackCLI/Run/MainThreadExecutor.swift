import LocTrack
import Synchronization

/// Runs loctrack's async code on the main thread, which would otherwise only wait.
///
/// With Swift's default executor, every fix would wake a thread of libdispatch's
/// pool (and, on Linux, libdispatch wakes its pool monitor once a second for the
/// life of the process once anything has used it). Here the consumer of fixes runs
/// on this one thread: a fix costs two wake-ups, the reader thread's and this
/// one's, and a quiet watch costs none.
final class MainThreadExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The main thread sleeps in poll() and must be woken for a new job.
        var sleeping = false
        var stopped = false
    }

    private let queue = Mutex(Queue())
    private let wakeUps: WakeUpPipe

    init() throws(Errno) {
        wakeUps = try WakeUpPipe()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wasSleeping = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        if wasSleeping { wakeUps.wake() }
    }

    /// Makes ``run()`` return once the jobs queued so far have run.
    func stop() {
        queue.withLock { $0.stopped = true }
        wakeUps.wake()
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
                wakeUps.wait(milliseconds: -1)
                continue
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
