import Glibc

/// A futex-backed POSIX semaphore of one process: one system call to sleep and one to
/// wake, for the main-thread executor's wake-ups.
///
/// Unchecked sendability, at a C boundary: the `sem_t` lives behind a pointer, which
/// Swift cannot see as Sendable; `sem_post` and `sem_wait` are thread-safe by POSIX,
/// the pointer never changes, and it is freed in `deinit`, when no thread can use it.
package final class Semaphore: @unchecked Sendable {
    private let semaphore: UnsafeMutablePointer<sem_t>

    /// A semaphore at 0. The C function is `sem_init(3)`.
    package init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    /// The C function is `sem_destroy(3)`.
    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Adds one, waking a waiter. The C function is `sem_post(3)`.
    package func signal() {
        sem_post(semaphore)
    }

    /// Sleeps until the count is above 0, then takes one. The C function is
    /// `sem_wait(3)`, retried on EINTR; its only other error, EINVAL, would be a
    /// semaphore that is not one, which the class rules out.
    package func wait() {
        do throws(Errno) {
            _ = try valueOrErrno { sem_wait(semaphore) }
        } catch {
            preconditionFailure("sem_wait: \(error)")
        }
    }
}
