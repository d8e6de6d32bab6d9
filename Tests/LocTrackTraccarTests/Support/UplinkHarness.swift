import Foundation
import Glibc
import LocTrackSpool
import Synchronization
@testable import LocTrackTraccar

/// An ``UploaderLoop`` on an ``InMemoryServer``, a real spool in a temporary folder and a
/// clock that only the test moves: the uplink's logic in milliseconds, with no thread, no
/// socket and no sleeping. Each ``step()`` is what the thread does after a wake-up.
final class UplinkHarness {
    /// The test's clock, in monotonic milliseconds; requests may move it.
    final class Clock: Sendable {
        let now = Mutex<Int64>(0)
        func read() -> Int64 { now.withLock { $0 } }
        func set(_ time: Int64) { now.withLock { $0 = time } }
        func advance(_ milliseconds: Int64) { now.withLock { $0 += milliseconds } }
    }

    final class StatusLog: Sendable {
        let entries = Mutex<[UplinkStatus]>([])
    }

    let server = InMemoryServer()
    let clock = Clock()
    let core: UplinkCore
    private(set) var loop: UploaderLoop<InMemoryServer, ScriptedJitter>
    private let log = StatusLog()
    let root: String
    private let ownsRoot: Bool
    private var nextPosition = 0
    /// The latest the loop asked to be woken (`Int64.max`: when woken); nil once it finished.
    private(set) var wakeAt: Int64?

    static let url = try! TraccarURL(parsing: "http://traccar.test:5055/?id=car1")

    /// - Parameters:
    ///   - root: a spool folder's parent to reuse (a restart); a new temporary one when nil.
    ///   - jitter: the backoff's draws.
    ///   - spoolLimitBytes: the spool's limit.
    init(root: String? = nil, jitter: ScriptedJitter = .longest, spoolLimitBytes: Int64 = 10_000_000) throws {
        self.root = try root ?? Self.makeTemporaryRoot()
        ownsRoot = root == nil
        let configuration = TraccarUplinkConfiguration(
            url: Self.url, spoolDirectory: self.root + "/spool", spoolLimitBytes: spoolLimitBytes)
        let log = self.log
        core = try UplinkCore(configuration) { status in log.entries.withLock { $0.append(status) } }
        let clock = self.clock
        loop = UploaderLoop(core: core, transport: server, jitter: jitter, clock: { clock.read() })
    }

    deinit {
        if ownsRoot { Self.remove(root) }
    }

    /// A new folder under /tmp for a spool.
    static func makeTemporaryRoot() throws -> String {
        var template = Array("/tmp/loctrack-traccar-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { throw SpoolError.io("/tmp", "mkdtemp", errno) }
        return String(cString: made)
    }

    static func remove(_ root: String) {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Spools `count` positions whose queries are "p0", "p1", … in the order spooled
    /// (from "p`first`" when given).
    @discardableResult
    func publish(_ count: Int, from first: Int? = nil) -> Bool {
        if let first { nextPosition = first }
        defer { nextPosition += count }
        return core.publish((nextPosition..<(nextPosition + count)).map { Array("p\($0)".utf8) })
    }

    /// A wake-up now: the loop performs the machine's actions until it sleeps or finishes.
    func step() {
        precondition(wakeAt != nil || loopNeverRan, "the loop has finished")
        loopNeverRan = false
        wakeAt = loop.performUntilSleep()
    }

    private var loopNeverRan = true

    /// Moves the clock to `time` and wakes the loop.
    func step(at time: Int64) {
        clock.set(time)
        step()
    }

    /// Wakes the loop at the time it asked for, `times` times.
    func stepAtDeadlines(_ times: Int = 1) {
        for _ in 0..<times {
            guard let wakeAt, wakeAt != .max else { return }
            step(at: wakeAt)
        }
    }

    /// Asks the loop to stop by `deadline` and wakes it.
    func requestStop(deadline: Int64) {
        core.requestStop(deadline: deadline)
        step()
    }

    var statuses: [UplinkStatus] { log.entries.withLock { $0 } }
    var isFinished: Bool { wakeAt == nil && !loopNeverRan }
}
