import Foundation
@testable import LocTrack
@testable import LocTrackMonitor
import Testing

@Suite("Monitor state file: the journal of decisions", .timeLimit(.minutes(1)))
struct MonitorJournalTests {
    typealias F = GeofenceFixtures
    static let path = "/state/m.monitor.json"

    static func snapshot() -> MonitorSnapshot {
        var snapshot = MonitorSnapshot(name: "m")
        snapshot.add(F.circle(radius: 100), identifier: "a", assuming: .unknown)
        snapshot.add(F.circle(radius: 50, north: 900), identifier: "b", assuming: .unknown)
        return snapshot
    }

    @Test("given a whole snapshot and two journal lines when decoded then each line's decisions replace the conditions' decided members")
    func journalApplies() throws {
        var engine = GeofenceEngine(snapshot: Self.snapshot())
        let base = MonitorFileFormat.encode(engine.snapshot)
        _ = engine.process(F.fix(north: 0, second: 0))
        let first = MonitorFileFormat.encodeDecisions(engine.changedConditions, lastFixTime: engine.snapshot.lastFixTime)
        engine.markPersisted()
        _ = engine.process(F.fix(north: 900, second: 1))
        #expect(engine.changedConditions.map(\.identifier) == ["a", "b"])
        let second = MonitorFileFormat.encodeDecisions(engine.changedConditions, lastFixTime: engine.snapshot.lastFixTime)
        let decoded = try MonitorFileFormat.decode(base + first + second, path: Self.path)
        #expect(decoded == engine.snapshot)
        #expect(decoded.conditions.map(\.state) == [.unsatisfied, .satisfied])
        #expect(decoded.lastFixTime == Timestamp(seconds: F.start.seconds + 1))
        // Written whole again, the journal is folded in: one line.
        let whole = MonitorFileFormat.encode(decoded)
        #expect(whole.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try MonitorFileFormat.decode(whole, path: Self.path) == decoded)
    }

    @Test("given a journal line cut short by a crash when decoded then it is left out and the lines before it count")
    func tornLastLine() throws {
        var engine = GeofenceEngine(snapshot: Self.snapshot())
        let base = MonitorFileFormat.encode(engine.snapshot)
        _ = engine.process(F.fix(north: 0, second: 0))
        let saved = engine.snapshot
        let first = MonitorFileFormat.encodeDecisions(engine.changedConditions, lastFixTime: engine.snapshot.lastFixTime)
        engine.markPersisted()
        _ = engine.process(F.fix(north: 900, second: 1))
        let second = MonitorFileFormat.encodeDecisions(engine.changedConditions, lastFixTime: engine.snapshot.lastFixTime)
        for cut in [1, second.count / 2, second.count - 1] {
            #expect(try MonitorFileFormat.decode(base + first + second.prefix(cut), path: Self.path) == saved)
        }
    }

    @Test("given journal lines that do not fit the file when decoded then the file is corrupt, naming the line", arguments: [
        (#"{"decisions":[{"id":"zz","serial":1,"state":"satisfied"}]}"#, #"line 2.decisions[0]: no condition "zz" with serial 1 in the file"#),
        (#"{"decisions":[{"id":"a","serial":7,"state":"satisfied"}]}"#, #"line 2.decisions[0]: no condition "a" with serial 7 in the file"#),
        (#"{"decisions":[{"id":"a","serial":1,"state":"unmonitored"}]}"#, "line 2.decisions[0].state"),
        (#"{"decisions":{}}"#, "line 2.decisions"),
        (#"{"decisions":[],"extra":1}"#, "line 2.extra: unknown member"),
        ("not json", "line 2: invalid JSON"),
    ])
    func badJournalLines(line: String, reason: String) throws {
        let bytes = MonitorFileFormat.encode(Self.snapshot()) + Array((line + "\n").utf8)
        #expect {
            try MonitorFileFormat.decode(bytes, path: Self.path)
        } throws: { error in
            guard case .corruptStateFile(let path, let message) = error as? GeofenceError else { return false }
            return path == Self.path && message.contains(reason)
        }
    }

    @Test("given a running monitor making hundreds of decisions when they are saved then they are appended, the file is rewritten whole once the journal is as large as the rest, and a reopened monitor has every state")
    func appendsAndCompacts() async throws {
        let root = try MonitorStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var lineCounts: [Int] = []
        let file = root + "/m.monitor.json"
        do {
            let monitor = try GeofenceMonitor(named: "m", directory: root)
            try await monitor.add([("in-out", F.circle(radius: 100)), ("far", F.circle(radius: 100, north: 5000))])
            for second in Int64(0)..<800 {
                // In and out of "in-out" every second: one decision per fix.
                let events = try await monitor.process(F.fix(north: second % 2 == 0 ? 0 : 400, second: second))
                #expect(!events.isEmpty)
                lineCounts.append(try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").count)
            }
        }
        #expect(lineCounts.max()! > 100, "decisions are appended")
        #expect(lineCounts.contains(1) && lineCounts.last! < lineCounts.max()!, "and folded into a whole write: \(lineCounts.suffix(10))")
        let reopened = try GeofenceMonitor(named: "m", directory: root)
        #expect(await reopened.record(for: "in-out")?.state == .unsatisfied)
        #expect(await reopened.record(for: "in-out")?.lastEvent?.time == Timestamp(seconds: F.start.seconds + 799))
        #expect(await reopened.record(for: "far")?.state == .unsatisfied)
        #expect(try await reopened.process(F.fix(north: 400, second: 799)).isEmpty)
    }

    @Test("given a state file ending in an interrupted save when a monitor opens it and decides then the file is rewritten whole, never appended to the fragment")
    func interruptedSaveIsRewritten() async throws {
        let root = try MonitorStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/m.monitor.json"
        let torn = MonitorFileFormat.encode(Self.snapshot()) + Array(#"{"decisions":[{"id":"a","ser"#.utf8)
        try Data(torn).write(to: URL(fileURLWithPath: file))
        let monitor = try GeofenceMonitor(named: "m", directory: root)
        let events = try await monitor.process(F.fix(north: 0, second: 0))
        #expect(events.map(\.identifier) == ["a", "b"])
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasSuffix("\n") && text.split(separator: "\n").count == 1)
        #expect(try MonitorFileFormat.decode(Array(text.utf8), path: file).conditions.map(\.state) == [.satisfied, .unsatisfied])
    }
}
