import LocTrack
import LocTrackSpool
import LocTrackSystem
import Synchronization

/// The uplink's state shared by the program and the thread: LocTrackSpool's channel (the
/// spool, the wake-up, the thread's end), the stop's deadline, and Traccar's own counts.
final class UplinkCore: SpoolUplinkCore {
    /// The spool's topic for a Traccar position (the record format is MQTT's: docs/spool.md).
    static let topic = "osmand"

    let configuration: TraccarUplinkConfiguration
    let channel: UplinkChannel<UplinkStatus>
    /// A fatal status was reported (the spool failed): publish refuses from then on.
    private let failed = Atomic(false)
    /// The stop's deadline, which libcurl's progress callback also cuts a request short at.
    let stopDeadline = StopDeadline()
    /// ``UploaderStateMachine/possibleDuplicates``, for the program to read.
    let possibleDuplicates = Atomic<Int>(0)

    var spool: Spool { channel.spool }

    init(_ configuration: TraccarUplinkConfiguration, onStatus: @escaping @Sendable (UplinkStatus) -> Void) throws(TraccarUplinkError) {
        self.configuration = configuration
        do {
            channel = try UplinkChannel(
                spoolDirectory: configuration.spoolDirectory, limitBytes: configuration.spoolLimitBytes, onStatus: onStatus)
        } catch {
            switch error {
            case .spool(let error): throw .spool(error)
            case .wakeUpPipe(let error): throw .thread(error.code)
            }
        }
    }

    /// Reports `status`; a fatal one once, and publish refuses from then on.
    func onStatus(_ status: UplinkStatus) {
        if status.isFatal {
            let (first, _) = failed.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent)
            guard first else { return }
        }
        channel.report(status)
    }

    /// Spools `positions` and wakes the thread (``TraccarUplink/publish(_:)``).
    func publish(_ positions: [[UInt8]]) -> Bool {
        guard !failed.load(ordering: .sequentiallyConsistent) else { return false }
        guard !positions.isEmpty else { return true }
        do {
            _ = try channel.append(positions.map { SpoolMessage(topic: Self.topic, payload: $0, qos: 1, retain: false) })
        } catch {
            onStatus(.spoolFailed(error))
            channel.wakeUps.wake()
            return false
        }
        return true
    }

    /// The deadline is counted from now: libcurl cuts a request short at it too.
    func recordStopRequest(drainingFor drain: Duration) {
        stopDeadline.set(Monotonic.milliseconds + drain.milliseconds)
    }

    /// Asks the thread to stop by `deadline` (the first request's stands) and wakes it.
    /// - Returns: whether the thread has already ended.
    @discardableResult
    func requestStop(deadline: Int64) -> Bool {
        stopDeadline.set(deadline)
        return channel.wakeForStop()
    }
}

extension UplinkStatus: SpoolUplinkStatus {}
