import Foundation
@testable import LocTrack
@testable import LocTrackMonitor
@testable import LocTrackCLI
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// The monitor's outbox: events saved with the decisions that cause them, delivered at
/// least once (``GeofenceDelivery``).
@Suite("Monitor outbox: every event delivered at least once, in order", .timeLimit(.minutes(1)))
struct MonitorOutboxTests {
    typealias F = GeofenceFixtures

    private static func names(_ deliveries: [GeofenceDelivery]) -> [String] {
        deliveries.map { "\($0.sequence) \($0.event.identifier):\($0.event.previousState)->\($0.event.state)" }
    }

    @Test("given decided events not confirmed when the monitor is reopened (a crash) then they are undelivered, in order, once per run")
    func unconfirmedAreRedelivered() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            do {
                let monitor = try GeofenceMonitor(named: "m", directory: root)
                try await monitor.add([("home", F.circle(radius: 100)), ("far", F.circle(radius: 50, north: 5000))])
                let first = try await monitor.decide([.fix(F.fix(north: 0, second: 0))])
                #expect(Self.names(first) == ["1 home:unknown->satisfied", "2 far:unknown->unsatisfied"])
                let second = try await monitor.decide([.fix(F.fix(north: 500, second: 1))])
                #expect(Self.names(second) == ["3 home:satisfied->unsatisfied"])
                await monitor.confirmDelivery(through: 1)
                // Not saved: the confirmation rides on the next save, which never comes.
            }
            let reopened = try GeofenceMonitor(named: "m", directory: root)
            #expect(Self.names(await reopened.undelivered())
                == ["1 home:unknown->satisfied", "2 far:unknown->unsatisfied", "3 home:satisfied->unsatisfied"])
            #expect(await reopened.undelivered().isEmpty, "handed out once per run")
            // New events are numbered on.
            let next = try await reopened.decide([.fix(F.fix(north: 0, second: 2))])
            #expect(Self.names(next) == ["4 home:unsatisfied->satisfied"])
        }
    }

    @Test("given deliveries confirmed and saved when the monitor is reopened then nothing is undelivered but what came after")
    func confirmedStayDelivered() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            do {
                let monitor = try GeofenceMonitor(named: "m", directory: root)
                try await monitor.add(F.circle(radius: 100), identifier: "home")
                _ = try await monitor.decide([.fix(F.fix(north: 0, second: 0))])
                _ = try await monitor.decide([.fix(F.fix(north: 500, second: 1))])
                await monitor.confirmDelivery(through: 1)
                try await monitor.saveConfirmations()
            }
            let reopened = try GeofenceMonitor(named: "m", directory: root)
            #expect(Self.names(await reopened.undelivered()) == ["2 home:satisfied->unsatisfied"])
        }
    }

    @Test("given confirmations when the next decision is saved then they ride on its journal line, and a whole write drops the entries")
    func confirmationsRideOnSaves() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            let monitor = try GeofenceMonitor(named: "m", directory: root)
            try await monitor.add(F.circle(radius: 100), identifier: "home")
            _ = try await monitor.decide([.fix(F.fix(north: 0, second: 0))])
            await monitor.confirmDelivery(through: 1)
            _ = try await monitor.decide([.fix(F.fix(north: 500, second: 1))])
            let text = try String(contentsOfFile: root + "/m.monitor.json", encoding: .utf8)
            let lines = text.split(separator: "\n")
            #expect(lines.count == 3, "the whole file and two journal lines: \(text)")
            #expect(lines[1].contains(#""events":[{"seq":1,"id":"home","state":"satisfied","time":"#))
            #expect(lines[2].contains(#""events":[{"seq":2,"id":"home","state":"unsatisfied","previous":"satisfied","#))
            #expect(lines[2].contains(#""delivered":1"#))
            let stored = try MonitorStore(name: "m", directory: root).read()
            #expect(stored.outbox.map(\.sequence) == [2])
            #expect(stored.nextEventSequence == 3)
            // Written whole (a condition added elsewhere), the outbox goes along as it is.
            try MonitorStore(name: "m", directory: root).update { $0.add(F.circle(radius: 10, north: 900), identifier: "x", assuming: .unknown) }
            try await Task.sleep(for: .milliseconds(1100))  // the monitor looks at most once a second
            let merged = try await monitor.decide([.fix(F.fix(north: 500, second: 2))])
            #expect(Self.names(merged) == ["3 x:unknown->unsatisfied"])
            let whole = try MonitorStore(name: "m", directory: root).read()
            #expect(whole.outbox.map(\.sequence) == [2, 3])
        }
    }

    @Test("given a region removed by another process while inside when the monitor picks it up then its unmonitored event says it was satisfied and is in the outbox of the same write")
    func removalWhileInside() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            do {
                let monitor = try GeofenceMonitor(named: "m", directory: root)
                try await monitor.add(F.circle(radius: 100), identifier: "home")
                _ = try await monitor.process(F.fix(north: 0, second: 0))
                try MonitorStore(name: "m", directory: root).update { (snapshot: inout MonitorSnapshot) throws(GeofenceError) in
                    try snapshot.remove("home")
                }
                try await Task.sleep(for: .milliseconds(1100))  // the monitor looks at most once a second
                let removed = try await monitor.decide(EmptyCollection())
                #expect(Self.names(removed) == ["2 home:satisfied->unmonitored"])
                #expect(removed.first?.event.fix == nil)
            }
            // Killed before delivering it: the next run still has the removal's event.
            let reopened = try GeofenceMonitor(named: "m", directory: root)
            #expect(Self.names(await reopened.undelivered()).last == "2 home:satisfied->unmonitored")
        }
    }

    @Test("given a journal with events and a delivered cursor when decoded then the outbox holds what is above it; a cursor out of order is corrupt")
    func journalDecoding() throws {
        var snapshot = MonitorSnapshot(name: "m")
        snapshot.add(F.circle(radius: 100), identifier: "a", assuming: .unknown)
        let base = MonitorFileFormat.encode(snapshot)
        let event = GeofenceEvent(monitor: "m", identifier: "a", state: .satisfied, fix: F.fix(north: 0, second: 0))
        let leave = GeofenceEvent(monitor: "m", identifier: "a", state: .unsatisfied, previousState: .satisfied,
                                  fix: F.fix(north: 500, second: 1))
        let first = MonitorFileFormat.encodeDecisions([], events: [GeofenceDelivery(sequence: 1, event: event)], lastFixTime: nil)
        let second = MonitorFileFormat.encodeDecisions(
            [], events: [GeofenceDelivery(sequence: 2, event: leave)], delivered: 1, lastFixTime: nil)
        let decoded = try MonitorFileFormat.decode(base + first + second, path: "/m.monitor.json")
        #expect(decoded.outbox.map(\.sequence) == [2])
        #expect(decoded.outbox.first?.event.previousState == .satisfied)
        #expect(decoded.outbox.first?.event.fix?.latitude == leave.fix?.latitude)
        #expect(decoded.nextEventSequence == 3)
        // Folded into one line and read back, the same.
        #expect(try MonitorFileFormat.decode(MonitorFileFormat.encode(decoded), path: "/m.monitor.json") == decoded)
        #expect(throws: GeofenceError.self) {
            try MonitorFileFormat.decode(base + second + first, path: "/m.monitor.json")
        }
    }

    @Test("given events handed out by process when process is called again then the earlier ones are confirmed")
    func processConfirmsThePrevious() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            do {
                let monitor = try GeofenceMonitor(named: "m", directory: root)
                try await monitor.add(F.circle(radius: 100), identifier: "home")
                _ = try await monitor.process(F.fix(north: 0, second: 0))
                _ = try await monitor.process(F.fix(north: 500, second: 1))
            }
            let reopened = try GeofenceMonitor(named: "m", directory: root)
            #expect(Self.names(await reopened.undelivered()) == ["2 home:satisfied->unsatisfied"], "only the last call's")
        }
    }

    @Test("given a region added by another process with --assume inside when the running monitor picks it up and the fixes are outside then its leave comes, after satisfied")
    func assumedInsideGetsItsLeave() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            let monitor = try GeofenceMonitor(named: "m", directory: root)
            try await monitor.add(F.circle(radius: 100, north: 5000), identifier: "far")
            _ = try await monitor.decide([.fix(F.fix(north: 500, second: 0))])
            // `loctrack monitor add home --circle … --assume inside` in another process.
            try MonitorStore(name: "m", directory: root).update { $0.add(F.circle(radius: 100), identifier: "home", assuming: .satisfied) }
            try await Task.sleep(for: .milliseconds(1100))  // the monitor looks at most once a second
            let left = try await monitor.decide([.fix(F.fix(north: 500, second: 1))])
            #expect(Self.names(left) == ["2 home:satisfied->unsatisfied"])
            let line = GeofenceEventLine.ownTracks(try #require(left.first).event, regionAdded: 1, trackerID: "pi")
            #expect(line?.contains(#""event":"leave","desc":"home""#) == true, "\(line ?? "nil")")
        }
    }
}
