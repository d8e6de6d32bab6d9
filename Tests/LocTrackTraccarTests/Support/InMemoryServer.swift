import Synchronization
@testable import LocTrackTraccar

/// A Traccar server in memory, as ``HTTPTransport`` sees one: each request gets the next
/// scripted outcome (200 once the script is used up), and what the server would have
/// stored is recorded in order: a 2xx, and a close without a reply (Traccar may store
/// before it closes).
final class InMemoryServer: HTTPTransport {
    /// The queries that reached the server, one per request, in order.
    private(set) var requests: [String] = []
    /// The queries the server stored, in order.
    private(set) var stored: [String] = []
    private var script: [HTTPOutcome] = []
    /// Called for each request before it is answered: a test moves its clock there (a
    /// request takes time).
    var onRequest: () -> Void = {}

    /// The next requests get these outcomes, in order.
    func answer(_ outcomes: [HTTPOutcome]) {
        script += outcomes
    }

    func answer(_ outcome: HTTPOutcome, times: Int) {
        script += Array(repeating: outcome, count: times)
    }

    func send(query: [UInt8]) -> HTTPOutcome {
        let text = String(decoding: query, as: UTF8.self)
        requests.append(text)
        onRequest()
        let outcome = script.isEmpty ? .reply(status: 200) : script.removeFirst()
        switch outcome {
        case .reply(let status) where (200..<300).contains(status): stored.append(text)
        case .failed(let failure) where failure.kind == .noReply: stored.append(text)
        default: break
        }
        return outcome
    }

    static let unavailable = HTTPOutcome.reply(status: 503)
    static let refused = HTTPOutcome.failed(HTTPFailure(.notSent, reason: "Failed to connect to 127.0.0.1 port 5055: Connection refused"))
    static let closedWithoutReply = HTTPOutcome.failed(HTTPFailure(.noReply, reason: "Empty reply from server"))
    static let unknownDevice = HTTPOutcome.reply(status: 400)
}
