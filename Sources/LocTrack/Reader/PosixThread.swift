import Glibc

/// Starts `body` on a new, detached POSIX thread: a real thread, so blocking
/// in `poll()`, `gps_open()`, `write()` or `sigwait()` never occupies Swift's
/// cooperative pool. Used by the reader and by the CLI's writer and signal threads.
///
/// - Returns: 0, or the error number from `pthread_create`.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Int32 {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { context in
        let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
        body.run()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return status
    }
    pthread_detach(thread)
    return 0
}
