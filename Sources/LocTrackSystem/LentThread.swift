import Glibc

/// A thread that is about to go to sleep can lend itself to the work it has just resumed.
///
/// loctrack's reader thread resumes its consumers (``LocTrack``'s serial processor) just
/// before it sleeps in `poll()`. The CLI's executor, which would otherwise wake the main
/// thread for that consumer, may instead run the consumer's job on the reader thread
/// right away when the thread says it is lent: at 1 Hz, one thread wakes per fix instead
/// of two, and the code of the second wake-up (the task resumption, the executor's queue,
/// the semaphore) is not run at all.
///
/// The contract, for the thread that lends itself: it holds no lock while lent (the
/// borrowed job may take any lock, the lender's own included), and nothing it does next
/// is urgent (it would sleep anyway). For the executor: run a borrowed job only when no
/// thread of its own is running jobs, so that its jobs still run one at a time.
/// A thread-local flag; other executors never look at it.
package enum LentThread {
    /// Whether the calling thread is lent (inside ``lend(_:)``).
    package static var isLent: Bool {
        pthread_getspecific(key) != nil
    }

    /// Runs `body` with the calling thread lent.
    package static func lend(_ body: () -> Void) {
        let wasLent = isLent
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))  // any non-nil value; never dereferenced
        body()
        if !wasLent { pthread_setspecific(key, nil) }
    }

    /// The thread-local slot, created once for the process.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create: \(status)")
        return key
    }()
}
