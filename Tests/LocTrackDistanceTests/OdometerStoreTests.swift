import Foundation
import LocTrack
import LocTrackDistance
import Testing

/// The odometer's state file, in a temporary folder.
@Suite("Odometer store")
struct OdometerStoreTests {
    static func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/loctrack-odometer-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let root = String(cString: try #require(made))
        defer { try? FileManager.default.removeItem(atPath: root) }
        try body(root)
    }

    static func time(_ seconds: Double) -> Timestamp {
        Timestamp(seconds: Receiver.start.seconds + Int64(seconds), nanoseconds: Int32((seconds - seconds.rounded(.down)) * 1e9))
    }

    static func contents(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test("Given no file, when the store opens, then it reads 0 m and writes nothing")
    func missingFileIsZero() throws {
        try Self.withTemporaryDirectory { root in
            let store = try OdometerStore.open(root + "/state/odometer.json")
            #expect(store.metres == 0)
            #expect(store.storedTime == nil)
            #expect(!FileManager.default.fileExists(atPath: root + "/state"))
        }
    }

    @Test("Given a recorded reading, when the store is opened again, then it reads that value, to the millimetre")
    func writeAndReopen() throws {
        try Self.withTemporaryDirectory { root in
            let path = root + "/state/odometer.json"
            var store = try OdometerStore.open(path)
            #expect(try store.record(OdometerReading(metres: 1234.56789, moving: true), at: Self.time(10)))
            #expect(try Self.contents(path)
                == #"{"loctrack":"odometer","version":1,"metres":1234.568,"time":"2026-01-01T00:00:10.000Z"}"# + "\n")
            let reopened = try OdometerStore.open(path)
            #expect(reopened.metres == 1234.568)
            #expect(reopened.storedTime == Self.time(10))
            // Only the owner can read it; no temporary file is left behind.
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        }
    }

    @Test("Given readings every 0.2 s, when they are recorded, then the file is written at most once per second of receiver time and flush writes the last")
    func atMostOncePerSecond() throws {
        try Self.withTemporaryDirectory { root in
            let path = root + "/odometer.json"
            var store = try OdometerStore.open(path)
            var written: [Int] = []
            // Ticks of 0.2 s, a metre each: 1 m at 0 s, 26 m at 5 s.
            for tick in 0...25 {
                let time = Timestamp(seconds: Receiver.start.seconds + Int64(tick / 5), nanoseconds: Int32(tick % 5) * 200_000_000)
                if try store.record(OdometerReading(metres: Double(tick + 1), moving: true), at: time) { written.append(tick) }
            }
            #expect(written == [0, 5, 10, 15, 20, 25])
            #expect(try OdometerStore.open(path).metres == 26)
            // A reading 0.2 s after the last write waits for the next write, or flush.
            try store.record(OdometerReading(metres: 27, moving: true), at: Timestamp(seconds: Receiver.start.seconds + 5, nanoseconds: 200_000_000))
            #expect(try OdometerStore.open(path).metres == 26)
            try store.flush()
            #expect(try OdometerStore.open(path).metres == 27)
        }
    }

    @Test("Given a reading held back by the limit, when the odometer stops growing, then a record a second after the last write writes it")
    func heldReadingIsWrittenASecondLater() throws {
        try Self.withTemporaryDirectory { root in
            let path = root + "/odometer.json"
            var store = try OdometerStore.open(path)
            #expect(try store.record(OdometerReading(metres: 10, moving: true), at: Self.time(0)))
            #expect(try store.record(OdometerReading(metres: 12, moving: true), at: Timestamp(seconds: Receiver.start.seconds, nanoseconds: 500_000_000)) == false)
            // Parked now: the same 12 m, a second after the write.
            #expect(try store.record(OdometerReading(metres: 12, moving: false), at: Self.time(1)))
            #expect(try Self.contents(path)
                == #"{"loctrack":"odometer","version":1,"metres":12,"time":"2026-01-01T00:00:00.500Z"}"# + "\n")
            #expect(try store.record(OdometerReading(metres: 12, moving: false), at: Self.time(5)) == false)
        }
    }

    @Test("Given a stored reading, when a lower one or the same is recorded, then the file keeps the higher value")
    func monotonic() throws {
        try Self.withTemporaryDirectory { root in
            let path = root + "/odometer.json"
            var store = try OdometerStore.open(path)
            try store.record(OdometerReading(metres: 500, moving: true), at: Self.time(0))
            #expect(try store.record(OdometerReading(metres: 400, moving: false), at: Self.time(10)) == false)
            #expect(try store.record(OdometerReading(metres: 500, moving: false), at: Self.time(20)) == false)
            // A restart resumes from the stored value: a fresh odometer never reads less.
            let reopened = try OdometerStore.open(path)
            var odometer = Odometer(startingAt: reopened.metres)
            #expect(odometer.add(TrackPoint(time: Self.time(30), latitude: 47, longitude: 8)).metres == 500)
            #expect(try OdometerStore.open(path).metres == 500)
        }
    }

    @Test("Given a user's value, when it is set, then it is stored at once without a time, even when lower")
    func userSetsTheValue() throws {
        try Self.withTemporaryDirectory { root in
            let path = root + "/odometer.json"
            var store = try OdometerStore.open(path)
            try store.record(OdometerReading(metres: 500, moving: true), at: Self.time(0))
            try store.set(metres: 120_000)
            #expect(try Self.contents(path) == #"{"loctrack":"odometer","version":1,"metres":120000}"# + "\n")
            try store.set(metres: 42)
            #expect(try OdometerStore.open(path).metres == 42)
            #expect(throws: OdometerStoreError.invalidMetres(-1)) { try store.set(metres: -1) }
        }
    }

    static let corruptFiles: [(contents: String, reason: String)] = [
        ("", "invalid JSON at byte 0: expected a value, found the end of the text"),
        ("{\"loctrack\":\"odometer\",\"version\":1,\"metres\":12",
         "invalid JSON at byte 46: expected ',' or '}' after an object member, found the end of the text"),
        ("[1,2]", "expected a JSON object, found an array"),
        ("{\"loctrack\":\"monitor\",\"version\":1,\"metres\":1}", "expected \"loctrack\":\"odometer\""),
        ("{\"loctrack\":\"odometer\",\"version\":2,\"metres\":1}", "expected \"version\":1"),
        ("{\"loctrack\":\"odometer\",\"version\":1,\"metres\":-5}", "expected \"metres\" to be a number of metres, 0 or more"),
        ("{\"loctrack\":\"odometer\",\"version\":1,\"metres\":\"5\"}", "expected \"metres\" to be a number of metres, 0 or more"),
        ("{\"loctrack\":\"odometer\",\"version\":1,\"metres\":5,\"time\":\"yesterday\"}", "expected \"time\" to be an ISO 8601 UTC time"),
        ("{\"loctrack\":\"odometer\",\"version\":1,\"metres\":5,\"km\":5}", "unknown member \"km\""),
    ]

    @Test("Given a corrupt file, when the store opens it, then a typed error names the file and the reason, and the file is left as it is",
          arguments: corruptFiles)
    func corruptFileIsAClearError(_ corrupt: (contents: String, reason: String)) throws {
        try Self.withTemporaryDirectory { root in
            let path = root + "/odometer.json"
            try corrupt.contents.write(toFile: path, atomically: false, encoding: .utf8)
            let error = #expect(throws: OdometerStoreError.self) { try OdometerStore.open(path) }
            #expect(error == .corruptFile(path: path, reason: corrupt.reason))
            #expect(error?.description == "\(path): not a loctrack odometer file (\(corrupt.reason)); fix or remove it, or set the odometer anew")
            #expect(try Self.contents(path) == corrupt.contents)
        }
    }

    @Test("Given a state file under a regular file, when the store opens, then the error names the file and the system's reason")
    func unreadablePlaceIsAnIOError() throws {
        try Self.withTemporaryDirectory { root in
            // A regular file where the folder should be: refused even to root, unlike permissions.
            try "".write(toFile: root + "/file", atomically: false, encoding: .utf8)
            let path = root + "/file/odometer.json"
            let error = #expect(throws: OdometerStoreError.self) { try OdometerStore.open(path) }
            #expect(error == .fileIO(path: path, operation: "read", errorNumber: ENOTDIR))
            #expect(error?.description == "\(path): cannot read the odometer file: Not a directory")
        }
    }

    @Test("Given a write that fails, when a reading is recorded, then the error names the file and the stored value stays")
    func failedWriteKeepsTheStoredValue() throws {
        try Self.withTemporaryDirectory { root in
            let path = root + "/odometer.json"
            var store = try OdometerStore.open(path)
            try store.record(OdometerReading(metres: 7, moving: true), at: Self.time(0))
            // A folder with something in it where the new file goes: it can be neither removed nor created.
            try FileManager.default.createDirectory(atPath: path + ".tmp/inside", withIntermediateDirectories: true)
            let error = #expect(throws: OdometerStoreError.self) {
                try store.record(OdometerReading(metres: 9, moving: true), at: Self.time(5))
            }
            #expect(error == .fileIO(path: path + ".tmp", operation: "create", errorNumber: EEXIST))
            #expect(error?.description == "\(path).tmp: cannot create the odometer file: File exists")
            #expect(store.metres == 7)
            #expect(try OdometerStore.open(path).metres == 7)
        }
    }
}
