/// The uplink's seam to the server: one HTTP request at a time, each ending in a reply
/// or a failure. libcurl's ``CurlTransport`` is the real one (one keep-alive connection);
/// the unit tests use an in-memory server that answers what the test says.
///
/// ``UploaderLoop`` is generic over it, and calls it on the uplink's thread only.
package protocol HTTPTransport: AnyObject {
    /// Sends one GET of the server's URL with `query` (one position) and waits for the
    /// reply, at most the transport's own time limit, or until the uplink's stop deadline
    /// passes (``StopDeadline``).
    func send(query: [UInt8]) -> HTTPOutcome
}

/// How one request ended.
package enum HTTPOutcome: Sendable, Equatable {
    /// The server replied with this HTTP status.
    case reply(status: Int)
    /// No reply.
    case failed(HTTPFailure)
}

/// A request that got no reply, and whether the server may have it all the same.
package struct HTTPFailure: Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The request never left: the name did not resolve, the connection was refused or
        /// timed out, TLS failed. The server does not have it.
        case notSent
        /// The request was sent and the connection closed (or timed out, or was aborted)
        /// before a reply: the server may have stored it. Traccar closes without a reply
        /// for a disabled device and for a value it cannot parse.
        case noReply
    }

    package var kind: Kind
    /// What libcurl said, one line (`Failed to connect to 127.0.0.1 port 5055 …`).
    package var reason: String

    package init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { reason }
}
