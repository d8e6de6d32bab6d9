package import LocTrackSystem

/// What a store-and-forward uplink's status says of its spool, whatever its protocol
/// (LocTrackMQTT's `PublisherStatus`, LocTrackTraccar's `UplinkStatus`): that its limit
/// dropped the oldest, and that it failed, with the spool's own error.
package protocol SpoolUplinkStatus: Sendable {
    /// The spool reached its limit: this many of its oldest messages were dropped.
    static func droppedOldest(count: Int, limitBytes: Int64) -> Self
    /// The spool failed (a full disk, damage): the uplink stopped.
    static func spoolFailed(_ error: SpoolError) -> Self
}

/// What a store-and-forward uplink's program and its thread share, whatever the protocol:
/// the spool the program appends to and the thread sends from, the wake-up pipe the thread
/// sleeps on, the thread's end (which ``SpoolUplinkThread/finish(drainingFor:)`` awaits),
/// and where statuses go. The transport and the protocol's state machine are the uplink's
/// own (its loop, on the thread); the stop request too, as each protocol drains its way.
package final class UplinkChannel<Status: SpoolUplinkStatus>: Sendable {
    package let spool: Spool
    /// The spool's limit, which ``Status/droppedOldest(count:limitBytes:)`` reports.
    package let limitBytes: Int64
    package let wakeUps: WakeUpPipe
    /// The thread's end: its last act marks it.
    package let end = ThreadEnd()
    private let onStatus: @Sendable (Status) -> Void

    /// Why a channel could not be made.
    package enum SetupError: Error {
        case spool(SpoolError)
        case wakeUpPipe(Errno)
    }

    /// Opens the spool in `directory` (see ``Spool/init(directory:limitBytes:)``) and makes
    /// the wake-up pipe.
    /// - Parameter onStatus: where ``report(_:)`` sends each status.
    package init(
        spoolDirectory directory: String, limitBytes: Int64, onStatus: @escaping @Sendable (Status) -> Void
    ) throws(SetupError) {
        self.limitBytes = limitBytes
        self.onStatus = onStatus
        do {
            spool = try Spool(directory: directory, limitBytes: limitBytes)
        } catch {
            throw .spool(error)
        }
        do {
            wakeUps = try WakeUpPipe()
        } catch {
            throw .wakeUpPipe(error)
        }
    }

    /// Reports `status` (on the caller's thread).
    package func report(_ status: Status) {
        onStatus(status)
    }

    /// Appends `messages` (in order, durably), wakes the thread, and reports the oldest
    /// dropped to stay within the spool's limit.
    /// - Returns: how many of the spool's oldest messages were dropped.
    /// - Throws: the spool's error; nothing of the batch was appended then.
    package func append(_ messages: [SpoolMessage]) throws(SpoolError) -> Int {
        let result = try spool.append(messages)
        wakeUps.wake()
        if result.droppedOldest > 0 { report(.droppedOldest(count: result.droppedOldest, limitBytes: limitBytes)) }
        return result.droppedOldest
    }

    /// Wakes the thread for a stop request its uplink has just recorded.
    /// - Returns: whether the thread has already ended (nothing to wait for then).
    package func wakeForStop() -> Bool {
        wakeUps.wake()
        return end.hasEnded
    }
}
