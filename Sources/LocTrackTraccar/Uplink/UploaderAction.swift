/// What ``UploaderStateMachine`` decides, for ``UploaderLoop`` to do.
enum UploaderAction: Equatable {
    /// Send the spool's oldest position from sequence `from` on (the spool starts at its
    /// head when that is later: the oldest may have been dropped), and hand the machine
    /// what came of it (``UploaderStateMachine/completed(_:outcome:now:)``).
    case send(from: UInt64)
    /// The server has this position: retire it from the spool and write the head (not synced).
    case acknowledge(UInt64)
    indirect case report(UplinkStatus)
    /// Wait for the wake-up pipe, at most until this monotonic millisecond (`Int64.max`:
    /// until woken).
    case sleep(until: Int64)
    /// The end: make the acknowledgements durable, stop.
    case finish
}
