import Glibc
@testable import LocTrack
@testable import LocTrackMonitor
import LocTrackSystem
import Testing

/// ``InMemoryMonitor``: a monitor's stored regions decided from fixes without touching its
/// files (`serve --monitor`), and ``MonitorStore/readWithoutWriting()`` under it.
@Suite("In-memory monitor: read once, decide in memory, write nothing", .timeLimit(.minutes(1)))
struct InMemoryMonitorTests {
    typealias F = GeofenceFixtures

    /// A monitor `car` in `directory` with a 100 m circle `home` (stored as satisfied) and
    /// a square `shop` 1 km north (unknown).
    static func store(in directory: String) throws -> MonitorStore {
        let store = try MonitorStore(name: "car", directory: directory)
        try store.update { snapshot in
            snapshot.add(F.circle(radius: 100), identifier: "home", assuming: .satisfied)
            snapshot.add(F.polygon([(900, -100), (900, 100), (1100, 100), (1100, -100)]), identifier: "shop", assuming: .unknown)
        }
        return store
    }

    /// The names in `directory` with their signatures: what "nothing was written" compares.
    static func contents(_ directory: String) throws -> [String: FileSignature] {
        var contents: [String: FileSignature] = [:]
        for name in try listDirectory(directory) {
            let file = try fileIdentity(directory + "/" + name)
            contents[name] = FileSignature(
                device: file.device, inode: file.inode, size: file.size, modificationSeconds: file.modified / 1_000_000_000,
                modificationNanoseconds: file.modified % 1_000_000_000)
        }
        return contents
    }

    @Test("given a stored monitor when loaded then its conditions come with their stored states, in order")
    func loadsStoredStates() throws {
        try MonitorStoreTests.withTemporaryDirectory { root in
            _ = try Self.store(in: root)
            let monitor = try #require(try InMemoryMonitor.load(named: "car", directory: root))
            #expect(monitor.name == "car")
            #expect(monitor.conditions.map(\.identifier) == ["home", "shop"])
            #expect(monitor.conditions.map(\.state) == [.satisfied, .unknown])
        }
    }

    @Test("given fixes leaving home and reaching the shop when processed then the events are monitor run's, and the file is unchanged")
    func decidesInMemory() throws {
        try MonitorStoreTests.withTemporaryDirectory { root in
            let store = try Self.store(in: root)
            let before = try Self.contents(root)
            var monitor = try #require(try InMemoryMonitor.load(named: "car", directory: root))
            var events: [String] = []
            for (second, north) in [(1, 0.0), (2, 300), (3, 1000)] {
                events += monitor.process(F.fix(north: north, second: Int64(second))).map { "\($0.identifier):\($0.previousState)>\($0.state)" }
            }
            #expect(events == ["shop:unknown>unsatisfied", "home:satisfied>unsatisfied", "shop:unsatisfied>satisfied"])
            #expect(monitor.conditions.map(\.state) == [.unsatisfied, .satisfied])
            #expect(try Self.contents(root) == before)
            #expect(try store.read().conditions.map(\.state) == [.satisfied, .unknown])
        }
    }

    @Test("given a dwell of 5 s when the fixes leave home then the event comes only once they stayed out 5 s")
    func dwell() throws {
        try MonitorStoreTests.withTemporaryDirectory { root in
            _ = try Self.store(in: root)
            var monitor = try #require(try InMemoryMonitor.load(named: "car", directory: root, dwell: .seconds(5)))
            #expect(monitor.process(F.fix(north: 300, second: 1)).isEmpty)
            #expect(monitor.process(F.fix(north: 300, second: 5)).isEmpty)
            // The shop's first decision (unsatisfied, from unknown) waits as long.
            #expect(monitor.process(F.fix(north: 300, second: 6)).map(\.identifier) == ["home", "shop"])
        }
    }

    @Test("given a monitor never written when loaded then nil, and no folder or file is made")
    func missingIsNil() throws {
        try MonitorStoreTests.withTemporaryDirectory { (root: String) throws in
            #expect(try InMemoryMonitor.load(named: "car", directory: root + "/loctrack") == nil)
            #expect(try listDirectory(root).isEmpty)
        }
    }

    @Test("given a running monitor's run lock and no lock file when read without writing then it reads, creating no lock file")
    func noLockFileCreated() throws {
        try MonitorStoreTests.withTemporaryDirectory { root in
            let store = try Self.store(in: root)
            let running = try store.holdRunLock()
            try removeFile(store.lockPath)
            let snapshot = try #require(try store.readWithoutWriting())
            #expect(snapshot.conditions.count == 2)
            #expect(!fileExists(store.lockPath))
            withExtendedLifetime(running) {}
        }
    }

    @Test("given a corrupt state file when loaded then corruptStateFile, and the file is left as it is")
    func corrupt() throws {
        try MonitorStoreTests.withTemporaryDirectory { root in
            let path = root + "/car.monitor.json"
            let file = try openFile(path, [.writeOnly, .create], mode: 0o600)
            try writeAll(file.rawValue, Array("{\"format\":".utf8), at: 0)
            #expect {
                _ = try InMemoryMonitor.load(named: "car", directory: root)
            } throws: { error in
                if case .corruptStateFile(let file, _) = error as? GeofenceError { return file == path }
                return false
            }
            #expect(try listDirectory(root) == ["car.monitor.json"])
        }
    }
}
