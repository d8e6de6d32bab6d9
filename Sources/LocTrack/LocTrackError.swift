import LocTrackSystem
/// Why loctrack could not deliver fixes.
///
/// One error type with a ``Code`` that callers switch on and a one-line,
/// human-readable ``description`` that already names the source and, for
/// connection failures, libgps's own reason (`gps_errstr`).
public struct LocTrackError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: Code
    /// What loctrack was talking to, when there was a source.
    public let source: GPSDSource?
    /// The underlying reason, e.g. libgps's "can't connect to host/port pair".
    public let reason: String
    /// The system's error number (`errno`), when a system call failed.
    public let errorNumber: Int32?

    public init(_ code: Code, source: GPSDSource? = nil, reason: String = "", errorNumber: Int32? = nil) {
        self.code = code
        self.source = source
        self.reason = reason
        self.errorNumber = errorNumber
    }

    /// A failed system call: the reason names the call and the C library's text for `errno`.
    init(_ code: Code, source: GPSDSource?, failedCall call: String, _ error: Errno) {
        self.init(code, source: source, reason: "\(call): \(error)", errorNumber: error.code)
    }

    public var description: String {
        let subject = source.map { "gpsd at \($0)" } ?? "gpsd"
        let detail = reason.isEmpty ? "" : ": \(reason)"
        switch code.kind {
        case .cannotConnect: return "cannot connect to \(subject)\(detail)"
        case .notGPSD: return "\(subject) is not gpsd\(detail)"
        case .connectionLost: return "lost the connection to \(subject)\(detail)"
        case .gpsdError: return "\(subject) refused the request\(detail)"
        case .noFixBeforeTimeout: return "no acceptable fix from \(subject) before the timeout\(detail)"
        case .invalidSource: return "invalid source\(detail)"
        }
    }
}

extension LocTrackError {
    /// What went wrong, as a small open set of values (`catch` and `switch` on it).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case cannotConnect, notGPSD, connectionLost, gpsdError, noFixBeforeTimeout, invalidSource
        }

        fileprivate let kind: Kind

        /// gpsd could not be reached: nothing listens, the host is unknown, ….
        public static let cannotConnect = Code(kind: .cannotConnect)
        /// The peer accepted the connection but did not speak gpsd's protocol.
        public static let notGPSD = Code(kind: .notGPSD)
        /// The connection to gpsd ended or failed after it was established.
        public static let connectionLost = Code(kind: .connectionLost)
        /// gpsd answered with an `ERROR` report, e.g. for an unknown device.
        public static let gpsdError = Code(kind: .gpsdError)
        /// A one-shot request found no fix meeting its bar in time.
        public static let noFixBeforeTimeout = Code(kind: .noFixBeforeTimeout)
        /// A source string is not `[host][:port[:device]]`.
        public static let invalidSource = Code(kind: .invalidSource)

        public var description: String { "\(kind)" }
    }
}
