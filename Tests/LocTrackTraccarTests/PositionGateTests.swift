import LocTrack
import LocTrackDistance
import LocTrackTraccar
import Testing

@Suite("Position gate and thinning: which fixes go to Traccar", .timeLimit(.minutes(1)))
struct PositionGateTests {
    /// The wall clock: one hour after the default fix.
    static let wallClock = Fixes.seconds + 3600

    @Test("given a good fix when checked then it may be sent")
    func goodFix() {
        #expect(PositionGate.refusal(for: Fixes.fix(), wallClockSeconds: Self.wallClock) == nil)
    }

    @Test(
        "given coordinates that are not finite or out of range when checked then the fix is refused",
        arguments: [
            (Double.nan, 13.4, PositionGate.Refusal.nonFiniteCoordinates), (52.5, .infinity, .nonFiniteCoordinates),
            (90.000001, 13.4, .outOfRange), (52.5, -180.5, .outOfRange),
        ])
    func badCoordinates(latitude: Double, longitude: Double, refusal: PositionGate.Refusal) {
        let fix = Fixes.fix(latitude: latitude, longitude: longitude)
        #expect(PositionGate.refusal(for: fix, wallClockSeconds: Self.wallClock) == refusal)
    }

    @Test("given exactly 0,0 when checked then it is refused, and a point near it is not")
    func nullIsland() {
        #expect(PositionGate.refusal(for: Fixes.fix(latitude: 0, longitude: 0), wallClockSeconds: Self.wallClock) == .nullIsland)
        #expect(PositionGate.refusal(for: Fixes.fix(latitude: 0, longitude: 0.000001), wallClockSeconds: Self.wallClock) == nil)
    }

    @Test("given a fix dated more than a day ahead of the wall clock when checked then it is held back; a day exactly passes")
    func datedAhead() {
        let day = Timestamp(seconds: Self.wallClock + 86_400)
        let later = Timestamp(seconds: Self.wallClock + 86_401)
        #expect(PositionGate.refusal(for: Fixes.fix(at: day), wallClockSeconds: Self.wallClock) == nil)
        #expect(PositionGate.refusal(for: Fixes.fix(at: later), wallClockSeconds: Self.wallClock) == .datedAhead(later))
    }

    @Test("given a fix dated before 2000 when checked then it is refused; 2000-01-01T00:00:00Z passes")
    func datedBefore2000() {
        let before = Timestamp(seconds: 946_684_799, nanoseconds: 999_000_000)
        #expect(PositionGate.refusal(for: Fixes.fix(at: before), wallClockSeconds: Self.wallClock) == .datedBefore2000(before))
        #expect(PositionGate.refusal(for: Fixes.fix(at: Timestamp(seconds: 946_684_800)), wallClockSeconds: Self.wallClock) == nil)
    }

    @Test("given fixes from a receiver in 2034 when taken then none is spooled and the reason is said once, naming the date")
    func heldBackSaidOnce() {
        var positions = TraccarPositions(deviceID: "car1")
        let reading = OdometerReading(metres: 0, moving: false)
        let first = positions.take(Fixes.fix(at: Timestamp(seconds: 2_030_000_000)), odometer: reading, wallClockSeconds: Self.wallClock)
        let second = positions.take(Fixes.fix(at: Timestamp(seconds: 2_030_000_001)), odometer: reading, wallClockSeconds: Self.wallClock)
        let zero = positions.take(Fixes.fix(latitude: 0, longitude: 0), odometer: reading, wallClockSeconds: Self.wallClock)
        #expect(first.query == nil && second.query == nil && zero.query == nil)
        #expect(first.notice == "traccar: holding back fixes dated more than a day ahead of this computer's clock (2034-04-30T08:53:20.000Z): "
            + "Traccar would drop them; is the receiver's date wrong (a GPS week rollover) or this computer's clock?")
        #expect(second.notice == nil)
        #expect(zero.notice == "traccar: not sending fixes at exactly 0,0 to Traccar (a receiver without a position reports those)")
        let good = positions.take(Fixes.fix(), odometer: reading, wallClockSeconds: Self.wallClock)
        #expect(good.notice == nil)
        #expect(good.query.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("id=car1&timestamp=1764000000240&") == true)
    }

    // MARK: Thinning

    static let still = OdometerReading(metres: 0, moving: false)
    static let moving = OdometerReading(metres: 0, moving: true)

    /// Which of `fixes` the thinning sends, by index.
    static func sent(_ thinning: Thinning, _ fixes: [(Fix, OdometerReading)]) -> [Int] {
        var thinning = thinning
        return fixes.indices.filter { thinning.shouldSend(fixes[$0].0, reading: fixes[$0].1) }
    }

    @Test("given no interval and no distance when fixes come then every one is sent")
    func everyFixByDefault() {
        let fixes = (0..<5).map { (Fixes.fix(after: Double($0)), Self.still) }
        #expect(Self.sent(Thinning(), fixes) == [0, 1, 2, 3, 4])
    }

    @Test("given a 10 s interval when fixes come at 1 Hz then the first and every tenth second's are sent")
    func interval() {
        let fixes = (0..<25).map { (Fixes.fix(after: Double($0)), Self.still) }
        #expect(Self.sent(Thinning(interval: 10), fixes) == [0, 10, 20])
    }

    @Test("given a 100 m distance when the fix moves 30 m a second then a fix goes once it is 100 m from the last sent")
    func distance() {
        let fixes = (0..<9).map { (Fixes.fix(after: Double($0), north: Double($0) * 30), Self.moving) }
        #expect(Self.sent(Thinning(distance: 100), fixes) == [0, 4, 8])
    }

    @Test("given an interval and a distance when either is reached then the fix is sent")
    func intervalOrDistance() {
        let fixes: [(Fix, OdometerReading)] = [
            (Fixes.fix(after: 0), Self.moving), (Fixes.fix(after: 1, north: 150), Self.moving),
            (Fixes.fix(after: 2, north: 160), Self.moving), (Fixes.fix(after: 31, north: 170), Self.moving),
        ]
        #expect(Self.sent(Thinning(interval: 30, distance: 100), fixes) == [0, 1, 3])
    }

    @Test("given a long interval when the motion changes then that fix is sent at once, both ways")
    func motionChange() {
        let fixes: [(Fix, OdometerReading)] = [
            (Fixes.fix(after: 0), Self.still), (Fixes.fix(after: 1), Self.still), (Fixes.fix(after: 2), Self.moving),
            (Fixes.fix(after: 3), Self.moving), (Fixes.fix(after: 4), Self.still),
        ]
        #expect(Self.sent(Thinning(interval: 600), fixes) == [0, 2, 4])
    }

    @Test("given an interval when the receiver's time goes back then the fix is sent rather than held until the clock catches up")
    func timeGoingBack() {
        let fixes: [(Fix, OdometerReading)] = [(Fixes.fix(after: 100), Self.still), (Fixes.fix(after: 50), Self.still)]
        #expect(Self.sent(Thinning(interval: 10), fixes) == [0, 1])
    }

    @Test("given thinning when a fix is refused by the gate then it does not count as sent")
    func refusedFixIsNotTheLastSent() {
        var positions = TraccarPositions(deviceID: "car1", thinning: Thinning(interval: 10))
        let clock = Fixes.seconds + 60
        #expect(positions.take(Fixes.fix(at: Timestamp(seconds: 900_000_000)), odometer: Self.still, wallClockSeconds: clock).query == nil)
        #expect(positions.take(Fixes.fix(after: 0), odometer: Self.still, wallClockSeconds: clock).query != nil)
        #expect(positions.take(Fixes.fix(after: 5), odometer: Self.still, wallClockSeconds: clock).query == nil)
    }
}
