import Testing
@testable import LocTrackServe

/// The connection limit's bookkeeping as plain values: connections named by strings, time
/// as instants the test chooses.
@Suite("Which connection gives way at the limit")
struct ConnectionRosterTests {
    /// A roster driven with times in seconds from the test's start (a class, so that each
    /// step can be written inside `#expect`).
    final class Driver {
        private let start = ContinuousClock.now
        var roster: ConnectionRoster<String>

        init(capacity: Int) {
            roster = ConnectionRoster(capacity: capacity, grace: .seconds(1))
        }

        func at(_ seconds: Double) -> ContinuousClock.Instant {
            start + .milliseconds(Int((seconds * 1000).rounded()))
        }

        var count: Int { roster.count }
        func shouldAccept(at seconds: Double) -> ConnectionRoster<String>.AcceptDecision { roster.shouldAccept(now: at(seconds)) }
        func admit(_ id: String, at seconds: Double) -> ConnectionRoster<String>.Admission { roster.admit(id, now: at(seconds)) }
        func requestHeadReceived(_ id: String) { roster.requestHeadReceived(id) }
        func answerEnded(_ id: String, at seconds: Double) -> Bool { roster.answerEnded(id, now: at(seconds)) }
        func closed(_ id: String) -> Bool { roster.closed(id) }
    }

    /// A roster of `capacity` with `names` admitted one after another, 0.1 s apart from 0.
    private func full(_ names: [String], capacity: Int? = nil) -> Driver {
        let roster = Driver(capacity: capacity ?? names.count)
        for (index, name) in names.enumerated() {
            #expect(roster.admit(name, at: Double(index) / 10) == .admitted)
        }
        return roster
    }

    @Test("given room, when connections come, then each is admitted and accepting goes on")
    func room() {
        let roster = full(["a", "b"], capacity: 3)
        #expect(roster.shouldAccept(at: 0.2) == .accept)
        #expect(roster.admit("c", at: 0.2) == .admitted)
        #expect(roster.count == 3)
    }

    @Test("given a full roster waiting past its grace, when a newcomer comes, then the one that has waited longest gives way")
    func oldestGivesWay() {
        let roster = full(["a", "b", "c"])
        #expect(roster.shouldAccept(at: 5) == .accept)
        #expect(roster.admit("d", at: 5) == .admittedInPlaceOf("a"))
        #expect(roster.admit("e", at: 5) == .admittedInPlaceOf("b"))
        #expect(roster.count == 3)
        // The newcomers have their grace too: c goes next, then d.
        #expect(roster.admit("f", at: 5) == .admittedInPlaceOf("c"))
        #expect(roster.admit("g", at: 5.5) == .refused)
        #expect(roster.admit("g", at: 6) == .admittedInPlaceOf("d"))
    }

    @Test("given a full roster whose connections have just come, when asked, then the acceptor waits for the oldest one's grace")
    func graceHolds() {
        let roster = full(["a", "b"])
        #expect(roster.shouldAccept(at: 0.5) == .wait(until: roster.at(1)))
        #expect(roster.admit("c", at: 0.5) == .refused)
        #expect(roster.shouldAccept(at: 0.999) == .wait(until: roster.at(1)))
        #expect(roster.shouldAccept(at: 1) == .accept)
        #expect(roster.admit("c", at: 1) == .admittedInPlaceOf("a"))
    }

    @Test("given every connection busy, when a newcomer comes, then none gives way and the acceptor waits with no time set")
    func busyNeverGivesWay() {
        let roster = full(["a", "b"])
        roster.requestHeadReceived("a")
        roster.requestHeadReceived("b")
        #expect(roster.shouldAccept(at: 60) == .wait(until: nil))
        #expect(roster.admit("c", at: 60) == .refused)
        #expect(roster.count == 2)
    }

    @Test("given the oldest connection busy, when a newcomer comes, then the oldest waiting one gives way instead")
    func busySkipped() {
        let roster = full(["stream", "idle", "late"])
        roster.requestHeadReceived("stream")
        #expect(roster.admit("new", at: 5) == .admittedInPlaceOf("idle"))
    }

    @Test("given a kept-alive connection, when its answer ends, then it waits from then: an older wait gives way first")
    func keptAliveWaitsFromItsAnswer() {
        let roster = full(["first", "second"])
        roster.requestHeadReceived("first")
        #expect(!roster.answerEnded("first", at: 3))
        #expect(roster.admit("new", at: 3.5) == .admittedInPlaceOf("second"))
        // first has waited 0.5 s since its answer, new 0 s: neither may go yet.
        #expect(roster.shouldAccept(at: 3.5) == .wait(until: roster.at(4)))
        #expect(roster.admit("newer", at: 4) == .admittedInPlaceOf("first"))
    }

    @Test("given two connections that began to wait in the same instant, then the first admitted goes first")
    func tiesByOrder() {
        let roster = Driver(capacity: 3)
        for name in ["x", "y", "z"] {
            #expect(roster.admit(name, at: 0) == .admitted)
        }
        #expect(roster.admit("n1", at: 2) == .admittedInPlaceOf("x"))
        #expect(roster.admit("n2", at: 2) == .admittedInPlaceOf("y"))
        #expect(roster.admit("n3", at: 2) == .admittedInPlaceOf("z"))
    }

    @Test("given a waiting acceptor, when a connection closes, then there is room and the acceptor is woken once")
    func closeWakes() {
        let roster = full(["a", "b"])
        #expect(roster.shouldAccept(at: 0.2) == .wait(until: roster.at(1)))
        #expect(roster.closed("b"))
        #expect(!roster.closed("a"))  // woken already: it asks again by itself
        #expect(roster.count == 0)
        #expect(roster.shouldAccept(at: 0.3) == .accept)
    }

    @Test("given an accepting acceptor, when a connection closes, then nobody is woken")
    func closeWithoutWaiter() {
        let roster = full(["a", "b"], capacity: 3)
        #expect(roster.shouldAccept(at: 0.2) == .accept)
        #expect(!roster.closed("a"))
        #expect(roster.count == 1)
    }

    @Test("given a connection that gave way, when it closes, then nothing changes: its place is taken")
    func givenWayCloseIsNothing() {
        let roster = full(["a", "b"])
        #expect(roster.admit("c", at: 2) == .admittedInPlaceOf("a"))
        #expect(roster.shouldAccept(at: 2) == .accept)  // b may give way
        roster.requestHeadReceived("b")
        #expect(roster.shouldAccept(at: 2) == .wait(until: roster.at(3)))
        #expect(!roster.closed("a"))
        #expect(roster.count == 2)
    }

    @Test("given an acceptor waiting with no time set, when an answer ends, then it is woken to set one")
    func answerEndWakesTimelessWaiter() {
        let roster = full(["a", "b"])
        roster.requestHeadReceived("a")
        roster.requestHeadReceived("b")
        #expect(roster.shouldAccept(at: 1) == .wait(until: nil))
        #expect(roster.answerEnded("b", at: 2))
        #expect(roster.shouldAccept(at: 2) == .wait(until: roster.at(3)))
        // Waiting with a time set: a later answer's end needs no wake.
        #expect(!roster.answerEnded("a", at: 2.5))
        #expect(roster.shouldAccept(at: 3) == .accept)
        #expect(roster.admit("c", at: 3) == .admittedInPlaceOf("b"))
    }

    @Test("given reports about a connection the roster does not hold, then they change nothing")
    func unknownConnections() {
        let roster = full(["a"], capacity: 2)
        roster.requestHeadReceived("ghost")
        #expect(!roster.answerEnded("ghost", at: 1))
        #expect(!roster.closed("ghost"))
        // A head on a connection already busy, an end on one already waiting: nothing either.
        roster.requestHeadReceived("a")
        roster.requestHeadReceived("a")
        #expect(!roster.answerEnded("a", at: 1))
        #expect(!roster.answerEnded("a", at: 1.5))
        #expect(roster.count == 1)
        #expect(roster.admit("b", at: 2) == .admitted)
        // a waits since its first end (1 s), not its second: at 2.4 s its grace has passed.
        #expect(roster.admit("c", at: 2.4) == .admittedInPlaceOf("a"))
    }
}
