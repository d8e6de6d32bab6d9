import LocTrack
import Testing
@testable import LocTrackSinks

/// When the Home Assistant sink's own thread must wake next (``HomeAssistantUpdates/nextDue(now:)``),
/// with the clock the test moves: it sleeps until what the interval held back is due, and
/// not at all while nothing is held back.
@Suite("Home Assistant's own clock", .timeLimit(.minutes(1)))
struct HomeAssistantClockTests {
    typealias U = HomeAssistantUpdatesTests

    @Test("given nothing taken when asked then nothing is due: the thread sleeps until the next input")
    func nothingHeldBack() {
        var updates = U.updates()
        _ = updates.announce(now: 0, spooled: 0)
        #expect(updates.nextDue(now: 0) == nil)
    }

    @Test("given a fix sent and a moved one held back by the interval when asked then it is due when the interval ends, and sent then")
    func movedFixDueAtTheInterval() {
        var updates = U.updates(interval: 10)
        _ = updates.take(.fix(U.fix(0)), now: 1_000, spooled: 0)
        _ = updates.take(.fix(U.fix(1, north: 50)), now: 2_000, spooled: 0)
        // Sent at 1 000 ms; the sensors' document is due with the same interval.
        #expect(updates.nextDue(now: 2_000) == 11_000)
        #expect(updates.tick(now: 10_999, spooled: 0).isEmpty)
        let due = updates.tick(now: 11_000, spooled: 0)
        #expect(U.topics(due).contains("loctrack/van/location"))
        #expect(updates.nextDue(now: 11_000) == nil)
    }

    @Test("given a parked tracker (the new fix within the error circle) when asked then it is due after the stationary period")
    func parkedFixDueAfterTheStationaryPeriod() {
        var updates = U.updates(interval: 10)
        _ = updates.take(.fix(U.fix(0)), now: 0, spooled: 0)
        _ = updates.tick(now: 10_000, spooled: 0)  // the sensors' document goes out; the position was sent at 0
        _ = updates.take(.fix(U.fix(20, north: 1)), now: 20_000, spooled: 0)
        let stationary = HomeAssistantUpdates.stationaryMilliseconds
        #expect(updates.nextDue(now: 20_000) == stationary)
        #expect(!U.topics(updates.tick(now: stationary - 1, spooled: 0)).contains("loctrack/van/location"))
        #expect(U.topics(updates.tick(now: stationary, spooled: 0)).contains("loctrack/van/location"))
    }
}
