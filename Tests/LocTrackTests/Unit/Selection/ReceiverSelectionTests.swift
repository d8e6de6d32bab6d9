import LocTrack
import LocTrackTestSupport
import Testing

/// The receiver selector as a pure state machine: given receivers' fixes on a monotonic
/// clock, when they change, then which receiver is followed, when it switches and why.
@Suite("Several receivers, one selected: quality and hysteresis")
struct ReceiverSelectionTests {
    typealias Reason = ReceiverSelection.Reason

    /// A fix of `device` at receiver second `second`.
    static func fix(
        _ device: String, second: Int64, status: Fix.Status = .gps, eph: Double? = 5, mode: Fix.Mode = .threeD
    ) -> Fix {
        Fix(
            time: Timestamp(seconds: 1_780_000_000 + second), mode: mode, status: status, device: device,
            latitude: 47.37, longitude: 8.54, horizontalError: eph)
    }

    /// Feeds both receivers once a second from `from` to `to` (inclusive); returns the switches
    /// with the second each came at.
    static func run(
        _ selection: inout ReceiverSelection, seconds: ClosedRange<Int64>,
        _ fixes: (Int64) -> [Fix]
    ) -> [(second: Int64, switched: ReceiverSelection.Switch)] {
        var switches: [(Int64, ReceiverSelection.Switch)] = []
        for second in seconds {
            for fix in fixes(second) {
                if let switched = selection.take(fix, at: .seconds(second)).switched { switches.append((second, switched)) }
            }
            if let switched = selection.tick(at: .seconds(second) + .milliseconds(500)) { switches.append((second, switched)) }
        }
        return switches
    }

    @Test("given no receiver when the first fix comes then its receiver is selected and followed, and a second one is not")
    func firstFixSelects() {
        var selection = ReceiverSelection()
        let first = selection.take(Self.fix("A", second: 0), at: .seconds(0))
        #expect(first.follows)
        #expect(first.switched?.reason == .first)
        #expect(first.switched?.to?.device == "A")
        #expect(selection.take(Self.fix("B", second: 0), at: .milliseconds(100)) == .init(follows: false, switched: nil))
    }

    @Test("given A RTK fixed and B DGPS when A falls to float then to nothing then B takes over within the stale limit, and when A is fixed again it takes over only after holding 2 s")
    func rtkThenLossThenRecovery() {
        var selection = ReceiverSelection()
        let switches = Self.run(&selection, seconds: 0...40) { second in
            let b = Self.fix("B", second: second, status: .dgps, eph: 1.5)
            switch second {
            case 0..<10: return [Self.fix("A", second: second, status: .rtkFixed, eph: 0.02), b]
            case 10..<20: return [Self.fix("A", second: second, status: .rtkFloat, eph: 0.3), b]
            case 20..<30: return [b]  // A has no fix: gpsd sends it no TPV with a position
            default: return [b, Self.fix("A", second: second, status: .rtkFixed, eph: 0.02)]
            }
        }
        #expect(switches.map(\.second) == [0, 22, 32])
        #expect(switches.map(\.switched.reason) == [.first, .stale, .betterClass])
        #expect(switches.map(\.switched.to?.device) == ["A", "B", "A"])
        // Stale: A's last fix at 19 s is older than 3 s at 22.5 s (the tick), not sooner.
        #expect(switches[1].switched.from == .init(device: "A", qualityClass: .rtkFloat, eph: 0.3))
        #expect(switches[1].switched.to == .init(device: "B", qualityClass: .differential, eph: 1.5))
        // A is back at 30 s and better from then: 2 s later, at 32 s, not at once.
        #expect(switches[2].switched.from?.qualityClass == .differential)
    }

    @Test("given two receivers of one class with ordinary eph noise for 10 minutes then there is no switch after the first")
    func equalClassNeverFlaps() {
        var selection = ReceiverSelection()
        var random = SplitMix64(seed: 36)
        let switches = Self.run(&selection, seconds: 0...600) { second in
            ["A", "B"].map { device in
                Self.fix(device, second: second, eph: 3 + Double(random.next() % 2000) / 1000 - 1)  // 2 to 4 m
            }
        }
        #expect(switches.count == 1)
        #expect(switches.first?.switched.reason == .first)
    }

    @Test("given B of A's class with an eph clearly better when it has held 10 s and 30 s have passed since the last switch then B takes over, and not before")
    func betterAccuracyHolds() {
        var selection = ReceiverSelection()
        let switches = Self.run(&selection, seconds: 0...60) { second in
            [Self.fix("A", second: second, eph: 6), Self.fix("B", second: second, eph: second < 5 ? 8 : 2.5)]
        }
        var late = ReceiverSelection()
        // B clearly better only from 40 s: 10 s of its fixes later, at 50 s.
        let later = Self.run(&late, seconds: 0...60) { second in
            [Self.fix("A", second: second, eph: 6), Self.fix("B", second: second, eph: second < 40 ? 3.5 : 2.5)]
        }
        #expect(later.map(\.second) == [0, 50])
        // B is better from 5 s and has held it 10 s at 15 s, but no switch within 30 s of the first (0 s).
        #expect(switches.map(\.second) == [0, 30])
        #expect(switches.last?.switched.reason == .betterAccuracy)
        #expect(switches.last?.switched.to?.device == "B")
    }

    @Test("given a better class that holds less than 2 s of its own fixes when it drops back then nothing switches, whatever else comes meanwhile")
    func briefBetterClassIsIgnored() {
        var selection = ReceiverSelection()
        let switches = Self.run(&selection, seconds: 0...20) { second in
            [Self.fix("A", second: second, status: .gps), Self.fix("B", second: second, status: second == 8 || second == 9 ? .rtkFixed : .gps, eph: 9)]
        }
        #expect(switches.map(\.switched.reason) == [.first])
    }

    @Test("given the selected device lost, a latched time, a time-only or a 2D fix under a 3D minimum when it comes then the selection leaves it at once")
    func ineligibleIsLeftAtOnce() {
        var lost = ReceiverSelection()
        _ = lost.take(Self.fix("A", second: 0, eph: 1), at: .seconds(0))
        _ = lost.take(Self.fix("B", second: 0, eph: 9), at: .seconds(0))
        #expect(lost.deviceLost("A", at: .seconds(1)) == .init(
            from: .init(device: "A", qualityClass: .gnss, eph: 1), to: .init(device: "B", qualityClass: .gnss, eph: 9),
            reason: .deviceLost))

        var latched = ReceiverSelection()
        _ = latched.take(Self.fix("A", second: 0, eph: 1), at: .seconds(0))
        _ = latched.take(Self.fix("B", second: 0, eph: 9), at: .seconds(0))
        _ = latched.take(Self.fix("B", second: 1, eph: 9), at: .seconds(1))
        let repeated = latched.take(Self.fix("A", second: 0, eph: 1), at: .seconds(1))
        #expect(!repeated.follows)
        #expect(repeated.switched?.reason == .ineligible)
        #expect(latched.selected == "B")

        var timeOnly = ReceiverSelection()
        #expect(!timeOnly.take(Self.fix("A", second: 0, status: .timeOnly), at: .seconds(0)).follows)
        #expect(timeOnly.selected == nil)

        var settings = ReceiverSelection.Settings()
        settings.minimumMode = .threeD
        var threeD = ReceiverSelection(settings: settings)
        #expect(!threeD.take(Self.fix("A", second: 0, mode: .twoD), at: .seconds(0)).follows)
        #expect(threeD.take(Self.fix("B", second: 0, mode: .threeD), at: .seconds(0)).follows)
    }

    @Test("given receivers equal in class and eph when the user names an order then the first named is selected, whatever comes first")
    func preferenceBreaksTies() {
        var settings = ReceiverSelection.Settings()
        settings.preference = ["/dev/ttyUSB1"]
        var selection = ReceiverSelection(settings: settings)
        _ = selection.take(Self.fix("/dev/ttyACM0", second: 0), at: .seconds(0))
        #expect(selection.selected == "/dev/ttyACM0", "the only one so far")
        // The preferred one arrives: equal class and eph, so no switch (a tie is no clear gain).
        _ = selection.take(Self.fix("/dev/ttyUSB1", second: 0), at: .seconds(0))
        #expect(selection.selected == "/dev/ttyACM0")
        var fresh = ReceiverSelection(settings: settings)
        _ = fresh.tick(at: .zero)
        _ = fresh.take(Self.fix("/dev/ttyACM0", second: 0), at: .seconds(0))
        _ = fresh.deviceLost("/dev/ttyACM0", at: .seconds(0))
        _ = fresh.take(Self.fix("/dev/ttyUSB1", second: 0), at: .seconds(0))
        _ = fresh.take(Self.fix("/dev/ttyACM0", second: 1), at: .seconds(1))
        #expect(fresh.selected == "/dev/ttyUSB1", "a recovered receiver does not retake at once")
    }

    @Test("given gpsd's statuses when classed then RTK fixed > float > DGPS and P(Y) > GPS > GNSS+DR > DR, and time only and simulated are no positions")
    func qualityClasses() {
        let order: [Fix.Status] = [.rtkFixed, .rtkFloat, .dgps, .gps, .gnssDeadReckoning, .deadReckoning]
        let classes = order.compactMap { Self.fix("A", second: 0, status: $0).qualityClass }
        #expect(classes == classes.sorted(by: >) && Set(classes).count == 6)
        #expect(Self.fix("A", second: 0, status: .pps).qualityClass == .differential)
        #expect(Self.fix("A", second: 0, status: .timeOnly).qualityClass == nil)
        #expect(Self.fix("A", second: 0, status: .simulated).qualityClass == nil)
    }
}
