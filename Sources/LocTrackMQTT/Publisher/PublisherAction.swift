/// What ``PublisherStateMachine`` decides, for ``PublisherLoop`` to do. Small by design:
/// the loop asks for one per message batch in a flood, so a status (large and rare) is
/// boxed and nothing else is.
enum PublisherAction: Equatable {
    /// Start the first connection.
    case connect
    /// A connection was accepted: subscribe and send the greetings
    /// (``PublisherConfiguration/greetings``), before anything from the spool.
    case greet
    /// Connect again with the same session (the transport resends what is in flight).
    case reconnect
    /// Hand over up to `limit` spooled messages, in order, from sequence `from` (the
    /// spool starts at its head when that is later: the oldest may have been dropped).
    case publish(from: UInt64, limit: Int)
    /// Retire these spool sequences and write the head (not synced).
    case acknowledge([UInt64])
    indirect case report(PublisherStatus)
    /// Say goodbye to a broker whose CONNACK failed; a retry is scheduled.
    case disconnect
    /// Wait for the transport or the wake-up pipe, at most until this monotonic millisecond.
    case sleep(until: Int64)
    /// The end: disconnect first when connected, make the acknowledgements durable, stop.
    case finish(disconnecting: Bool)
}
