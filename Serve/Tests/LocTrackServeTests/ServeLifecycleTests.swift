import Testing
@testable import LocTrackServe

@Suite("loctrack-serve from start to exit")
struct ServeLifecycleTests {
    private func started() -> ServeLifecycle {
        var lifecycle = ServeLifecycle(requested: "127.0.0.1:8947")
        _ = lifecycle.handle(.listening(address: "127.0.0.1:8947"))
        return lifecycle
    }

    @Test("bound: the line is announced, then gpsd is read")
    func listening() {
        var lifecycle = ServeLifecycle(requested: "127.0.0.1:0")
        #expect(lifecycle.handle(.listening(address: "127.0.0.1:40123")) == [.announce(address: "127.0.0.1:40123"), .startLive])
    }

    @Test("the address cannot be bound: one line and 69, before gpsd is contacted")
    func bindFails() {
        var lifecycle = ServeLifecycle(requested: "[::1]:8947")
        #expect(lifecycle.handle(.serverEnded(failure: "Address already in use"))
            == [.exit(code: 69, message: "loctrack: cannot listen on [::1]:8947: Address already in use")])
        #expect(lifecycle.handle(.listening(address: "[::1]:8947")) == [])
    }

    @Test("a signal stops the streams and the server; its end exits 0")
    func signalThenServerEnd() {
        var lifecycle = started()
        #expect(lifecycle.handle(.signal(15)) == [.stop, .armDeadline])
        #expect(lifecycle.handle(.liveEnded(code: 0, message: nil)) == [])
        #expect(lifecycle.handle(.serverEnded(failure: nil)) == [.exit(code: 0, message: nil)])
    }

    @Test("connections that do not end within the grace: exit 0 all the same")
    func deadline() {
        var lifecycle = started()
        _ = lifecycle.handle(.signal(2))
        #expect(lifecycle.handle(.shutdownDeadline) == [.exit(code: 0, message: nil)])
    }

    @Test("a second signal exits at once with 128 + its number")
    func secondSignal() {
        var lifecycle = started()
        _ = lifecycle.handle(.signal(2))
        #expect(lifecycle.handle(.signal(2)) == [.exit(code: 130, message: nil)])
        #expect(lifecycle.handle(.serverEnded(failure: nil)) == [])
    }

    @Test("a signal before the address is bound exits 0 at once")
    func signalWhileStarting() {
        var lifecycle = ServeLifecycle(requested: "127.0.0.1:8947")
        #expect(lifecycle.handle(.signal(15)) == [.exit(code: 0, message: nil)])
    }

    @Test("gpsd's session ended by itself: the server stops and the process exits with its code")
    func liveEnds() {
        var lifecycle = started()
        #expect(lifecycle.handle(.liveEnded(code: 69, message: "loctrack: gpsd went away")) == [.stop, .armDeadline])
        #expect(lifecycle.handle(.serverEnded(failure: nil)) == [.exit(code: 69, message: "loctrack: gpsd went away")])
    }

    @Test("the server ending without being asked: 69 with its reason")
    func serverFails() {
        var lifecycle = started()
        #expect(lifecycle.handle(.serverEnded(failure: "Too many open files"))
            == [.stop, .exit(code: 69, message: "loctrack: the server stopped: Too many open files")])
    }
}
