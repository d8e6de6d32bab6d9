public import NIOCore

/// The server's limits (docs/http.md, "Limits").
public struct ServeLimits: Sendable {
    /// Connections open at once. At this many, a newcomer takes the place of the connection
    /// that has waited longest for a request head, once that one has waited ``shedAfter``;
    /// a connection that is being answered (an event stream included) is never closed for
    /// it. While none can give way, newcomers wait in the kernel's accept queue
    /// (``ConnectionRoster``).
    public var connections = 256
    /// How long a connection may wait for a request head before it can be closed for a
    /// newcomer at the limit: a client that has just connected has its head on the way.
    public var shedAfter = TimeAmount.seconds(1)
    /// The accept queue (`listen(2)`'s backlog; Linux caps it at somaxconn).
    public var backlog = 256
    /// A request's head (request line and header fields) at most this many bytes: `431`.
    public var headBytes = 16 * 1024
    /// A request's head must have arrived, and a kept-alive connection must start its next
    /// request, within this time of the connection's start or the previous answer's end,
    /// or the connection is closed (Hummingbird's idle timeout: it only counts a head
    /// once it is complete, so a head sent a byte at a time does not restart the time).
    public var headTime = TimeAmount.seconds(10)
    /// A connection whose client reads nothing for this long while an answer waits to be
    /// written is closed (``StalledReaderCloser``).
    public var stalledReader = TimeAmount.seconds(10)

    public init() {}
}
