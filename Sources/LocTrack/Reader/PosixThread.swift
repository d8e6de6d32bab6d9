import Glibc

/// Starts `body` on a new, detached POSIX thread: a real thread, so blocking
/// in `poll()` or `gps_open()` never occupies Swift's cooperative pool.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) throws(LocTrackError) {
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
        throw LocTrackError(.cannotConnect, reason: "cannot start the reader thread: \(Errno(code: status))")
    }
    pthread_detach(thread)
}
