import LocTrackTestSupport
import Foundation
import Glibc
@testable import LocTrackMQTT
@testable import LocTrackSpool
import Synchronization
@testable import LocTrackFormats
@testable import LocTrackSinks

/// A ``PublisherLoop`` on an ``InMemoryBroker``, a real spool in a temporary folder and a
/// clock that only the test moves: the publisher's logic in milliseconds, with no
/// thread, no socket and no sleeping. Each ``step(at:)`` is what the thread does after
/// a wake-up: hand the machine what the broker did, then perform its actions.
final class PublisherHarness {
    /// What the loop reported, in order.
    final class StatusLog: Sendable {
        let entries = Mutex<[PublisherStatus]>([])
    }

    let broker = InMemoryBroker()
    let core: PublisherCore
    let brokerURL: BrokerURL
    private var loop: PublisherLoop<InMemoryBroker, SplitMix64>
    private let log = StatusLog()
    private let root: String
    private var nextPayload = 0
    /// The test's clock, in monotonic milliseconds.
    private(set) var now: Int64 = 0
    /// The latest the loop asked to be woken; nil once it has finished.
    private(set) var wakeAt: Int64?

    /// - Parameter seed: the backoff's jitter; the same seed gives the same delays.
    /// - Parameters:
    ///   - adjust: changes to the configuration (greetings, subscriptions).
    ///   - hooks: what the loop also calls (messages from the subscriptions, wake-ups).
    init(
        maximumInflight: Int = 200, seed: UInt64 = 1, adjust: (inout PublisherConfiguration) -> Void = { _ in },
        hooks: PublisherHooks = PublisherHooks()
    ) throws {
        var template = Array("/tmp/loctrack-publisher-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { throw SpoolError.io("/tmp", "mkdtemp", errno) }
        root = String(cString: made)
        brokerURL = try BrokerURL(parsing: "mqtt://broker.test/fleet/car1")
        var configuration = PublisherConfiguration(
            broker: brokerURL, clientID: "car1", spoolDirectory: root + "/spool", spoolLimitBytes: 10_000_000)
        configuration.maximumInflight = maximumInflight
        adjust(&configuration)
        let log = self.log
        core = try PublisherCore(configuration, hooks: hooks) { status in log.entries.withLock { $0.append(status) } }
        loop = PublisherLoop(core: core, transport: broker, jitter: SplitMix64(seed: seed))
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Spools `count` messages whose payloads are "m0", "m1", … in the order spooled.
    func spool(_ count: Int, qos: UInt8 = 1) throws {
        let messages = (0..<count).map { offset in
            SpoolMessage(topic: brokerURL.topic, payload: Array("m\(nextPayload + offset)".utf8), qos: qos, retain: false)
        }
        nextPayload += count
        _ = try core.spool.append(messages)
    }

    /// The thread's first turn: it connects at once.
    func start() {
        wakeAt = loop.performUntilSleep(now: now)
    }

    /// A wake-up at `time` (now when nil): what the broker did is handed to the machine,
    /// then its actions are performed until it sleeps or finishes.
    func step(at time: Int64? = nil) {
        precondition(wakeAt != nil, "the loop has finished")
        if let time { now = time }
        loop.serviceTransport(now: now)
        wakeAt = loop.performUntilSleep(now: now)
    }

    /// Steps at the time the loop asked to be woken.
    func stepAtWakeUp() {
        step(at: wakeAt)
    }

    /// When the next connection attempt is due, while there is no connection. The loop
    /// also wakes every second meanwhile, for libmosquitto's housekeeping.
    var retryAt: Int64? {
        guard case .waiting(let retryAt) = loop.machine.connection else { return nil }
        return retryAt
    }

    /// Steps at the time the next connection attempt is due.
    func stepAtRetry() {
        step(at: retryAt)
    }

    /// `Publisher.finish(drainingFor:)`'s request (the test then steps to let the loop see it).
    func requestStop(drainingFor drain: Duration) {
        core.requestStop(drainingFor: drain)
    }

    var isFinished: Bool { wakeAt == nil }

    /// The reports since the last call.
    func takeReports() -> [PublisherStatus] {
        log.entries.withLock { entries in
            defer { entries = [] }
            return entries
        }
    }

    /// Texts "m<first>" … "m<last>".
    static func texts(_ range: ClosedRange<Int>) -> [String] { range.map { "m\($0)" } }
}
