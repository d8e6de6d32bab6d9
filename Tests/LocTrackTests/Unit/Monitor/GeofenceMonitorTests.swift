import Foundation
@testable import LocTrack
@testable import LocTrackMonitor
import Testing

@Suite("Geofence monitor: the actor over the engine and the state file", .timeLimit(.minutes(1)))
struct GeofenceMonitorTests {
    typealias F = GeofenceFixtures

    @Test("given a monitor open when the same name is opened again in this process then alreadyOpen; once released it opens")
    func oneOpenPerName() async throws {
        try MonitorStoreTests.withTemporaryDirectory { root in
            var first: GeofenceMonitor? = try GeofenceMonitor(named: "car", directory: root)
            #expect(throws: GeofenceError.alreadyOpen("car")) { try GeofenceMonitor(named: "car", directory: root) }
            _ = try GeofenceMonitor(named: "boat", directory: root)
            #expect(first?.name == "car")
            first = nil
            #expect(try GeofenceMonitor(named: "car", directory: root).name == "car")
        }
    }

    @Test("given conditions added when fixes are processed then events come back, records follow, and a reopened monitor repeats none")
    func processAndRestore() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            do {
                let monitor = try GeofenceMonitor(named: "m", directory: root)
                try await monitor.add(F.circle(radius: 100), identifier: "home")
                try await monitor.add([("far", F.circle(radius: 50, north: 5000)), ("near", F.circle(radius: 300))])
                #expect(await monitor.identifiers == ["home", "far", "near"])
                let events = try await monitor.process(F.fix(north: 0, second: 0))
                #expect(events.map { "\($0.identifier):\($0.state)" } == ["home:satisfied", "far:unsatisfied", "near:satisfied"])
                #expect(events.first?.monitor == "m")
                let record = await monitor.record(for: "home")
                #expect(record?.state == .satisfied)
                #expect(record?.lastEvent == events.first)
                #expect(record?.added != nil)
            }
            // As after a crash: a new monitor reads the state file; the same fix decides nothing new.
            let reopened = try GeofenceMonitor(named: "m", directory: root)
            #expect(try await reopened.process(F.fix(north: 0, second: 1)).isEmpty)
            #expect(try await reopened.process(F.fix(north: 0, second: 0)).isEmpty)  // older: ignored
            let left = try await reopened.process(F.fix(north: 500, second: 2))
            #expect(left.map { "\($0.identifier):\($0.state)" } == ["home:unsatisfied", "near:unsatisfied"])
            try await reopened.remove("near")
            let removed = try await reopened.process(F.fix(north: 500, second: 3))
            #expect(removed.map { "\($0.identifier):\($0.state)" } == ["near:unmonitored"])
            #expect(removed.first?.fix == nil)
            await #expect(throws: GeofenceError.unknownIdentifier("near", monitor: "m")) { try await reopened.remove("near") }
        }
    }

    @Test("given an identifier with a control character or none when added then invalidIdentifier and nothing is stored")
    func invalidIdentifiers() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            let monitor = try GeofenceMonitor(named: "m", directory: root)
            await #expect(throws: GeofenceError.invalidIdentifier("")) { try await monitor.add(F.circle(radius: 10), identifier: "") }
            await #expect(throws: GeofenceError.invalidIdentifier("a\nb")) { try await monitor.add(F.circle(radius: 10), identifier: "a\nb") }
            #expect(await monitor.identifiers.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: root + "/m.monitor.json"))
        }
    }

    @Test("given a dwell of 10 s when the receiver enters then the event comes with the fix 10 s later")
    func dwell() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            let monitor = try GeofenceMonitor(named: "m", directory: root, dwell: .seconds(10))
            try await monitor.add(F.circle(radius: 100), identifier: "home", assuming: .unsatisfied)
            var events: [GeofenceEvent] = []
            for second in Int64(0)...12 { events += try await monitor.process(F.fix(north: 0, second: second)) }
            #expect(events.map(\.time) == [Timestamp(seconds: F.start.seconds + 10)])
        }
    }
}
