import Synchronization

/// The first fatal status of a sink's uplink (a refused login, a failed spool), in a box
/// that the uplink's status callback and the sink both hold: the callback records it and
/// ends the command once; the sink's `finish` reports it.
final class FirstFatalStatus<Status: Sendable>: Sendable {
    private let status = Mutex<Status?>(nil)

    /// Records `status` if it is the first. - Returns: whether it was.
    func record(_ status: Status) -> Bool {
        self.status.withLock { current in
            guard current == nil else { return false }
            current = status
            return true
        }
    }

    /// The first recorded, if any.
    var first: Status? { status.withLock { $0 } }
}
