import LocTrackTestSupport
import Testing
@testable import LocTrack
@testable import LocTrackMonitor

@Suite("Geofence engine", .timeLimit(.minutes(1)))
struct GeofenceEngineTests {
    typealias F = GeofenceFixtures

    private func states(_ events: [GeofenceEvent]) -> [String] {
        events.map { "\($0.identifier):\($0.state)\($0.accuracyLimited ? "(limited)" : "")" }
    }

    @Test("Given a 100 m circle, when a walk passes straight through it, then there is one exit (first decision), one enter and one exit near the boundary")
    func passThrough() {
        var engine = F.engine([("c", F.circle(radius: 100))])
        var events: [(second: Int64, event: GeofenceEvent)] = []
        // From 300 m south to 300 m north at 2 m/s, eph 5 m.
        for second in Int64(0)...300 {
            for event in engine.process(F.fix(north: -300 + 2 * Double(second), second: second)) {
                events.append((second, event))
            }
        }
        #expect(events.map(\.event.state) == [.unsatisfied, .satisfied, .unsatisfied])
        // Enter when the error circle is inside: 95 m south of the centre, second 102.5.
        #expect(events[1].second == 103)
        // Leave when 100 + 5 + 10 m north: second 207.5.
        #expect(events[2].second == 208)
        #expect(engine.snapshot.conditions[0].state == .unsatisfied)
    }

    @Test("Given a receiver on the boundary with ±15 m jitter and an honest eph, when ten minutes pass, then the state changes at most once")
    func noFlapping() {
        var engine = F.engine([("c", F.circle(radius: 200))])
        var generator = SplitMix64(seed: 42)
        var events: [GeofenceEvent] = []
        for second in Int64(0)..<600 {
            let jitterNorth = generator.uniform(-15, 15)
            let jitterEast = generator.uniform(-15, 15)
            events += engine.process(F.fix(north: 200 + jitterNorth, east: jitterEast, eph: 15, second: second))
        }
        #expect(events.count <= 1)
        // With an eph of 5 m the fixes 10 to 15 m inside decide `satisfied`, and nothing flips back:
        // leaving needs 200 + 5 + 20 m (10% of 200 m).
        var optimistic = F.engine([("c", F.circle(radius: 200))])
        var flips: [GeofenceEvent] = []
        for second in Int64(0)..<600 {
            flips += optimistic.process(F.fix(north: 200 + generator.uniform(-15, 15), eph: 5, second: second))
        }
        #expect(states(flips) == ["c:satisfied"])
    }

    @Test("Given a fence smaller than the error circle, when fixes sit in its centre, then nothing is decided and accuracyLimited is reported once")
    func accuracyLimited() {
        var engine = F.engine([("small", F.circle(radius: 8))])
        var events: [GeofenceEvent] = []
        for second in Int64(0)..<30 { events += engine.process(F.fix(north: 0, eph: 12, second: second)) }
        #expect(states(events) == ["small:unknown(limited)"])
        // A good fix decides; a poor one afterwards is reported again, once.
        events = engine.process(F.fix(north: 0, eph: 3, second: 31))
        events += engine.process(F.fix(north: 0, eph: 20, second: 32))
        events += engine.process(F.fix(north: 0, eph: 20, second: 33))
        #expect(states(events) == ["small:satisfied", "small:satisfied(limited)"])
    }

    @Test("Given an eph wavering around a 25 m fence's size, when processed, then the limit is reported once, and again only after an eph of 15 m or less")
    func accuracyLimitHysteresis() {
        var engine = F.engine([("gc", F.circle(radius: 25, north: 2000))])
        var events: [GeofenceEvent] = []
        for second in Int64(0)..<40 {
            events += engine.process(F.fix(north: 0, eph: second % 2 == 0 ? 20 : 30, second: second))
        }
        // Decided (far outside) by the first 20 m fix; the 30 m ones are reported once.
        #expect(states(events) == ["gc:unsatisfied", "gc:unsatisfied(limited)"])
        // 25 − min(10, 12.5) = 15 m lifts the limit.
        events = engine.process(F.fix(north: 0, eph: 15, second: 40)) + engine.process(F.fix(north: 0, eph: 30, second: 41))
        #expect(states(events) == ["gc:unsatisfied(limited)"])
    }

    @Test("Given fixes without eph, when processed, then they decide nothing")
    func noErrorEstimate() {
        var engine = F.engine([("c", F.circle(radius: 100))])
        let events = engine.process(F.fix(north: 0, eph: nil, second: 0)) + engine.process(F.fix(north: 0, eph: nil, second: 1))
        #expect(states(events) == ["c:unknown(limited)"])
    }

    @Test("Given a fix older than the last one used, when processed, then it is ignored")
    func olderFixIgnored() {
        var engine = F.engine([("c", F.circle(radius: 100))])
        #expect(states(engine.process(F.fix(north: 0, second: 10))) == ["c:satisfied"])
        #expect(engine.process(F.fix(north: 500, second: 9)).isEmpty)
        #expect(states(engine.process(F.fix(north: 500, second: 11))) == ["c:unsatisfied"])
    }

    @Test("Given an assumed state, when the first fix agrees, then there is no event; when it disagrees, there is one")
    func assumedState() {
        var inside = F.engine([("c", F.circle(radius: 100))], assuming: .satisfied)
        #expect(inside.process(F.fix(north: 0, second: 0)).isEmpty)
        var outside = F.engine([("c", F.circle(radius: 100))], assuming: .unsatisfied)
        #expect(states(outside.process(F.fix(north: 0, second: 0))) == ["c:satisfied"])
    }

    @Test("Given a dwell of 30 s, when the receiver enters for 20 s and leaves, then nothing is reported; when it stays 30 s, the enter is")
    func dwell() {
        var engine = F.engine([("c", F.circle(radius: 100))], assuming: .unsatisfied, dwell: 30)
        var events: [GeofenceEvent] = []
        for second in Int64(0)...20 { events += engine.process(F.fix(north: 0, second: second)) }
        for second in Int64(21)...40 { events += engine.process(F.fix(north: 500, second: second)) }
        #expect(events.isEmpty)
        #expect(engine.snapshot.conditions[0].pending == nil)
        for second in Int64(41)...80 { events += engine.process(F.fix(north: 0, second: second)) }
        #expect(states(events) == ["c:satisfied"])
        #expect(events.first?.time == Timestamp(seconds: F.start.seconds + 71))
    }

    @Test("Given a concave U polygon, when a walk crosses both arms, then it enters and leaves twice")
    func concaveCrossedTwice() {
        let u = [(0.0, 0.0), (300, 0), (300, 100), (100, 100), (100, 200), (300, 200), (300, 300), (0, 300)]
        var engine = F.engine([("u", F.polygon(u))], assuming: .unsatisfied)
        var events: [GeofenceEvent] = []
        // West to east, 250 m north: left arm, notch, right arm.
        for second in Int64(0)...200 {
            events += engine.process(F.fix(north: 250, east: -50 + 2 * Double(second), second: second))
        }
        #expect(states(events) == ["u:satisfied", "u:unsatisfied", "u:satisfied", "u:unsatisfied"])
    }

    @Test("Given the state file gains one condition and loses another, when merged, then the new one joins and the lost one is unmonitored")
    func mergeFromStateFile() {
        var engine = F.engine([("a", F.circle(radius: 100)), ("b", F.circle(radius: 100, north: 1000))])
        _ = engine.process(F.fix(north: 0, second: 0))
        #expect(engine.snapshot.conditions.map(\.state) == [.satisfied, .unsatisfied])
        var stored = engine.snapshot
        stored.conditions[0].state = .unknown  // the file is older than the engine's decisions
        try! stored.remove("b")
        stored.add(F.circle(radius: 50), identifier: "c", assuming: .unknown)
        let removed = engine.merge(stored)
        #expect(states(removed) == ["b:unmonitored"])
        #expect(engine.snapshot.conditions.map(\.identifier) == ["a", "c"])
        #expect(engine.snapshot.conditions[0].state == .satisfied)
        #expect(states(engine.process(F.fix(north: 0, second: 1))) == ["c:satisfied"])
    }

    @Test("Given a condition removed and added again under the same id, when merged, then it starts over")
    func reAddedStartsOver() {
        var engine = F.engine([("a", F.circle(radius: 100))])
        _ = engine.process(F.fix(north: 0, second: 0))
        var stored = engine.snapshot
        stored.add(F.circle(radius: 100), identifier: "a", assuming: .unknown)
        #expect(states(engine.merge(stored)) == ["a:unmonitored"])
        #expect(states(engine.process(F.fix(north: 0, second: 1))) == ["a:satisfied"])
    }

    @Test("Given 2,500 polygons, when fixes arrive after the first decisions, then the grid's decisions match a full scan")
    func manyPolygonsMatchFullScan() {
        var conditions: [(String, GeofenceCondition)] = []
        for index in 0..<2_500 {
            let north = Double(index / 50) * 300
            let east = Double(index % 50) * 300
            conditions.append(("p\(index)", F.polygon([(north, east), (north + 100, east), (north + 100, east + 100), (north, east + 100)])))
        }
        var engine = F.engine(conditions)
        var generator = SplitMix64(seed: 7)
        var events: [GeofenceEvent] = []
        var fixes: [Fix] = []
        for second in Int64(0)..<600 {
            // Half the fixes near a polygon's corner, where the grid's cells matter most.
            let north = second % 2 == 0 ? generator.uniform(0, 15_000) : Double(Int(generator.uniform(0, 50))) * 300 + generator.uniform(-20, 120)
            let east = second % 2 == 0 ? generator.uniform(0, 15_000) : Double(Int(generator.uniform(0, 50))) * 300 + generator.uniform(-20, 120)
            fixes.append(F.fix(north: north, east: east, eph: 4, second: second))
        }
        for fix in fixes { events += engine.process(fix) }
        // The same answer from first principles: every condition's state after each fix,
        // by the rules alone over every condition, for a sample of conditions.
        for slot in stride(from: 0, to: 2_500, by: 37) {
            let condition = engine.snapshot.conditions[slot]
            let geometry = RegionGeometry(condition.condition)
            var state = GeofenceState.unknown
            var expected: [GeofenceState] = []
            for fix in fixes {
                let verdict = GeofenceRules.verdict(error: fix.horizontalError, size: geometry.size) {
                    geometry.signedDistance(from: fix.point)
                }
                let decided: GeofenceState? = verdict == .inside ? .satisfied : verdict == .outside ? .unsatisfied : nil
                if let decided, decided != state {
                    state = decided
                    expected.append(decided)
                }
            }
            #expect(events.filter { $0.identifier == condition.identifier }.map(\.state) == expected, "\(condition.identifier)")
            #expect(condition.state == state)
        }
        #expect(events.filter { $0.state == .satisfied }.count > 50)
    }
}
