import LocTrack
import LocTrackSpool
import LocTrackSystem
import Synchronization

/// The uplink's state shared by the program and the thread.
final class UplinkCore: Sendable {
    struct Shared {
        /// A fatal status was reported (the spool failed): publish refuses from then on.
        var failed = false
    }

    /// The spool's topic for a Traccar position (the record format is MQTT's: docs/spool.md).
    static let topic = "osmand"

    let configuration: TraccarUplinkConfiguration
    let spool: Spool
    let wakeUps: WakeUpPipe
    let shared = Mutex(Shared())
    let stopDeadline = StopDeadline()
    /// The thread's end, which ``TraccarUplink/finish(drainingFor:)`` awaits before joining it.
    let end = ThreadEnd()
    /// ``UploaderStateMachine/possibleDuplicates``, for the program to read.
    let possibleDuplicates = Atomic<Int>(0)
    private let onStatusCallback: @Sendable (UplinkStatus) -> Void

    init(_ configuration: TraccarUplinkConfiguration, onStatus: @escaping @Sendable (UplinkStatus) -> Void) throws(TraccarUplinkError) {
        self.configuration = configuration
        self.onStatusCallback = onStatus
        do {
            spool = try Spool(directory: configuration.spoolDirectory, limitBytes: configuration.spoolLimitBytes)
        } catch {
            throw .spool(error.description)
        }
        do {
            wakeUps = try WakeUpPipe()
        } catch {
            throw .thread(error.code)
        }
    }

    /// Reports `status`; a fatal one once, and publish refuses from then on.
    func onStatus(_ status: UplinkStatus) {
        if status.isFatal {
            let first = shared.withLock { shared in
                defer { shared.failed = true }
                return !shared.failed
            }
            guard first else { return }
        }
        onStatusCallback(status)
    }

    /// Spools `positions` and wakes the thread (``TraccarUplink/publish(_:)``).
    func publish(_ positions: [[UInt8]]) -> Bool {
        guard !shared.withLock({ $0.failed }) else { return false }
        guard !positions.isEmpty else { return true }
        let result: SpoolAppendResult
        do {
            result = try spool.append(positions.map { SpoolMessage(topic: Self.topic, payload: $0, qos: 1, retain: false) })
        } catch {
            onStatus(.failed(reason: error.description))
            wakeUps.wake()
            return false
        }
        wakeUps.wake()
        if result.droppedOldest > 0 {
            onStatus(.droppedOldest(count: result.droppedOldest, limitBytes: configuration.spoolLimitBytes))
        }
        return true
    }

    /// Asks the thread to stop by `deadline` (the first request's stands) and wakes it.
    /// - Returns: whether the thread has already ended.
    @discardableResult
    func requestStop(deadline: Int64) -> Bool {
        stopDeadline.set(deadline)
        wakeUps.wake()
        return end.hasEnded
    }
}
