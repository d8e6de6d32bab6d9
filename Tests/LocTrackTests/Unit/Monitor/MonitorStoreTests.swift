import Foundation
@testable import LocTrack
@testable import LocTrackMonitor
import Glibc
import LocTrackTestSupport
import Synchronization
import Testing

@Suite("Monitor store: locked, atomic state files", .timeLimit(.minutes(1)))
struct MonitorStoreTests {
    /// A fresh directory under /tmp.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/loctrack-store-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return String(cString: try #require(made))
    }

    /// A fresh directory under /tmp, removed (made writable first) after `body`.
    static func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let root = try temporaryDirectory()
        defer {
            _ = chmod(root + "/loctrack", 0o700)
            try? FileManager.default.removeItem(atPath: root)
        }
        try body(root)
    }

    /// The same for an async `body` (the monitor's tests).
    static func withTemporaryDirectory(_ body: (String) async throws -> Void) async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await body(root)
    }

    static func circle(_ radius: Double = 100) throws(GeofenceError) -> GeofenceCondition {
        try .circle(center: GeoPoint(latitude: 52.5, longitude: 13.4), radius: radius)
    }

    /// Adds a circle as `identifier` through `update`.
    @discardableResult
    static func add(_ identifier: String, to store: MonitorStore, radius: Double = 100) throws(GeofenceError) -> MonitorSnapshot {
        let circle = try circle(radius)
        return try store.update { snapshot in snapshot.add(circle, identifier: identifier, assuming: .unknown) }
    }

    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    }

    @Test("given environments when the directory is resolved then XDG_STATE_HOME if absolute, else HOME's .local/state",
          arguments: [
            (["XDG_STATE_HOME": "/var/state", "HOME": "/home/u"], "/var/state/loctrack"),
            (["XDG_STATE_HOME": "/var/state/", "HOME": "/home/u"], "/var/state/loctrack"),
            (["XDG_STATE_HOME": "relative/state", "HOME": "/home/u"], "/home/u/.local/state/loctrack"),
            (["XDG_STATE_HOME": "", "HOME": "/home/u"], "/home/u/.local/state/loctrack"),
            (["HOME": "/home/u"], "/home/u/.local/state/loctrack"),
          ])
    func directoryResolution(environment: [String: String], expected: String) throws {
        let store = try MonitorStore(name: "default", environment: environment)
        #expect(store.directory == expected)
        #expect(store.statePath == expected + "/default.monitor.json")
        #expect(store.lockPath == expected + "/default.monitor.lock")
        #expect(store.runPath == expected + "/default.monitor.run")
        #expect(try MonitorStore(name: "x", directory: "/given", environment: environment).directory == "/given")
    }

    @Test("given no usable HOME when the directory is resolved then the password database's home is used")
    func passwordDatabaseHome() throws {
        let home = String(cString: try #require(getpwuid(getuid())?.pointee.pw_dir))
        #expect(try MonitorStore(name: "d", environment: ["HOME": "relative"]).directory == home + "/.local/state/loctrack")
        #expect(try MonitorStore(name: "d", environment: [:]).directory == home + "/.local/state/loctrack")
    }

    @Test("given names when a store is made then only 1 to 64 of [A-Za-z0-9._-] not starting with '.' are accepted",
          arguments: [("home-1.2_X", true), (String(repeating: "a", count: 64), true), ("", false), (".hidden", false),
                      ("a/b", false), ("a b", false), ("naïve", false), (String(repeating: "a", count: 65), false), ("..", false)])
    func names(name: String, valid: Bool) {
        let result = Result { () throws(GeofenceError) in try MonitorStore(name: name, directory: "/tmp") }
        if valid {
            #expect(throws: Never.self) { try result.get() }
        } else {
            #expect(throws: GeofenceError.invalidName(name)) { try result.get() }
        }
    }

    @Test("given no state file when read then an empty snapshot with the store's name, and nothing is created")
    func readMissing() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root + "/loctrack")
            #expect(try store.read() == MonitorSnapshot(name: "home"))
            #expect(store.signature() == nil)
            #expect(!FileManager.default.fileExists(atPath: store.directory))
        }
    }

    @Test("given an update that adds when done then the file is written 0600 in a 0700 directory and reads back")
    func updateWritesAndReadsBack() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root + "/state/loctrack")
            let circle = try Self.circle()
            let written = try store.update { snapshot in snapshot.add(circle, identifier: "a", assuming: .unknown) }
            #expect(written.conditions.map(\.identifier) == ["a"])
            #expect(written.nextSerial == 2)
            #expect(try store.read() == written)
            #expect(Self.bytes(store.statePath) == MonitorFileFormat.encode(written))
            #expect(Self.mode(store.statePath) == 0o600)
            #expect(Self.mode(store.lockPath) == 0o600)
            #expect(Self.mode(store.directory) == 0o700)
            #expect(Self.mode(root + "/state") == 0o700)
            #expect(!FileManager.default.fileExists(atPath: store.temporaryPath))
        }
    }

    @Test("given updates that change nothing or throw when done then nothing is written")
    func noWriteWithoutChange() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root)
            try store.update { _ in }
            #expect(store.signature() == nil)
            try Self.add("a", to: store)
            let before = try #require(store.signature())
            try store.update { _ in }
            let small = try Self.circle(5)
            #expect(throws: GeofenceError.unknownIdentifier("b", monitor: "home")) {
                try store.update { (snapshot: inout MonitorSnapshot) throws(GeofenceError) in
                    snapshot.add(small, identifier: "c", assuming: .unknown)
                    try snapshot.remove("b")
                }
            }
            #expect(store.signature() == before)
            #expect(try store.read().conditions.map(\.identifier) == ["a"])
            try store.update { (snapshot: inout MonitorSnapshot) throws(GeofenceError) in try snapshot.remove("a") }
            #expect(store.signature() != before)
        }
    }

    @Test("given a corrupt state file when read or updated then corruptStateFile, and the file is untouched byte for byte")
    func corruptFileUntouched() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root)
            let garbage = Array(#"{"loctrack":"monitor","version":1,"name":"home","nextSerial":2,"conditions":[}"#.utf8) + [0xFF, 0x00]
            #expect(FileManager.default.createFile(atPath: store.statePath, contents: Data(garbage)))
            let before = store.signature()
            let expected = GeofenceError.corruptStateFile(
                path: store.statePath, reason: "invalid JSON at byte 77: expected a value, found '}'")
            #expect(throws: expected) { try store.read() }
            #expect(throws: expected) { try Self.add("a", to: store) }
            #expect(Self.bytes(store.statePath) == garbage)
            #expect(store.signature() == before)
            #expect(!FileManager.default.fileExists(atPath: store.temporaryPath))
        }
    }

    @Test("given a state file of another monitor's name when read then it reads as this monitor's")
    func copiedFileTakesStoreName() throws {
        try Self.withTemporaryDirectory { root in
            let home = try MonitorStore(name: "home", directory: root)
            let fix = Fix(time: Timestamp(seconds: 1_800_000_000), mode: .twoD, latitude: 52.5, longitude: 13.4)
            let circle = try Self.circle()
            try home.update { snapshot in
                snapshot.add(circle, identifier: "a", assuming: .satisfied)
                snapshot.conditions[0].lastEvent = GeofenceEvent(monitor: "home", identifier: "a", state: .satisfied, fix: fix)
            }
            let work = try MonitorStore(name: "work", directory: root)
            #expect(FileManager.default.createFile(atPath: work.statePath, contents: Data(try #require(Self.bytes(home.statePath)))))
            let read = try work.read()
            #expect(read.name == "work")
            #expect(read.conditions[0].lastEvent == GeofenceEvent(monitor: "work", identifier: "a", state: .satisfied, fix: fix))
        }
    }

    @Test("given 8 threads each adding 25 conditions through update when all are done then all 200 are stored")
    func concurrentUpdatesLoseNothing() async throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        do {
            let store = try MonitorStore(name: "busy", directory: root)
            let circle = try Self.circle()
            let failures = Mutex<[String]>([])
            let done = DispatchGroup()
            for thread in 0..<8 {
                done.enter()
                Thread {
                    for index in 0..<25 {
                        do {
                            try store.update { snapshot in snapshot.add(circle, identifier: "t\(thread)-\(index)", assuming: .unknown) }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                    done.leave()
                }.start()
            }
            try await done.wait(within: .seconds(30), "the 8 writer threads")
            #expect(failures.withLock { $0 } == [])
            let stored = try store.read()
            #expect(stored.conditions.count == 200)
            #expect(Set(stored.conditions.map(\.identifier)).count == 200)
            #expect(Set(stored.conditions.map(\.serial)) == Set(1...200))
            #expect(stored.nextSerial == 201)
        }
    }

    @Test("given a known version of the state file when replaced then it is written; once another update intervened, nothing is written")
    func replaceOnlyIfUnchanged() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "m", directory: root)
            var snapshot = try Self.add("a", to: store)
            let known = store.signature()
            snapshot.conditions[0].state = .satisfied
            #expect(try store.replace(with: snapshot, ifStill: known))
            #expect(try store.read() == snapshot)
            let afterReplace = store.signature()
            #expect(afterReplace != known)
            _ = try Self.add("b", to: store)  // another process's add
            snapshot.conditions[0].state = .unsatisfied
            #expect(try !store.replace(with: snapshot, ifStill: afterReplace))
            #expect(try store.read().conditions.map(\.identifier) == ["a", "b"])
            #expect(try store.read().conditions[0].state == .satisfied)
        }
    }

    @Test("given the run lock held when it is taken again then alreadyRunning, and after release it can be taken")
    func runLock() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root + "/loctrack")
            var held: RunLock? = try store.holdRunLock()
            #expect(held?.path == store.runPath)
            #expect(throws: GeofenceError.alreadyRunning("home", path: store.runPath)) { try store.holdRunLock() }
            // Another store object for the same files is no different: the lock is per open file.
            #expect(throws: GeofenceError.alreadyRunning("home", path: store.runPath)) {
                try MonitorStore(name: "home", directory: root + "/loctrack").holdRunLock()
            }
            // Updates use a different file and are not blocked by a running monitor.
            try Self.add("a", to: store)
            held = nil
            #expect(throws: Never.self) { _ = try store.holdRunLock() }
            _ = held
        }
    }

    @Test("given a read-only directory when updated then stateFileIO with EACCES and the state unchanged (not as root)")
    func readOnlyDirectory() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root + "/loctrack")
            try Self.add("a", to: store)
            let before = Self.bytes(store.statePath)
            #expect(chmod(store.directory, 0o500) == 0)
            let result = Result { () throws(GeofenceError) in
                try Self.add("b", to: store, radius: 7)
            }
            if getuid() != 0 {  // root ignores permissions: its write succeeds
                #expect(throws: GeofenceError.stateFileIO(path: store.temporaryPath, operation: "create", errorNumber: EACCES)) {
                    try result.get()
                }
                #expect(Self.bytes(store.statePath) == before)
            }
            #expect(chmod(store.directory, 0o700) == 0)
        }
    }

    @Test("given the new file's name taken by a directory when updated then stateFileIO names it and the state is unchanged")
    func createFailure() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root)
            try Self.add("a", to: store)
            let before = Self.bytes(store.statePath)
            #expect(mkdir(store.temporaryPath, 0o700) == 0)
            #expect(throws: GeofenceError.stateFileIO(path: store.temporaryPath, operation: "create", errorNumber: EEXIST)) {
                try Self.add("b", to: store, radius: 7)
            }
            #expect(Self.bytes(store.statePath) == before)
        }
    }

    @Test("given the state path taken by a directory when updated then stateFileIO reading it with EISDIR, nothing written")
    func unreadableStatePath() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root)
            #expect(mkdir(store.statePath, 0o700) == 0)
            let expected = GeofenceError.stateFileIO(path: store.statePath, operation: "read", errorNumber: EISDIR)
            #expect(throws: expected) { try store.read() }
            #expect(throws: expected) { try Self.add("a", to: store) }
            #expect(!FileManager.default.fileExists(atPath: store.temporaryPath))
        }
    }

    @Test("given a leftover new file of a writer that died when updated then it is replaced and the update succeeds")
    func leftoverTemporaryFile() throws {
        try Self.withTemporaryDirectory { root in
            let store = try MonitorStore(name: "home", directory: root)
            #expect(FileManager.default.createFile(atPath: store.temporaryPath, contents: Data("half".utf8)))
            try Self.add("a", to: store)
            #expect(try store.read().conditions.map(\.identifier) == ["a"])
            #expect(!FileManager.default.fileExists(atPath: store.temporaryPath))
        }
    }
}
