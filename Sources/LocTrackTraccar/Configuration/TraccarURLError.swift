/// A Traccar URL that cannot be used. Its description is one line, without anything
/// secret; the command line exits 64 with it before anything is read.
public enum TraccarURLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL does not start with `http://` or `https://`.
    case unsupportedScheme
    case missingHost
    /// Not a name, an IPv4 address or a bracketed IPv6 address.
    case invalidHost(String)
    /// Not a number from 1 to 65535.
    case invalidPort(String)
    /// No `id=` (nor `deviceid=`) in the query.
    case missingDevice
    /// `id=` with nothing after it.
    case emptyDevice
    /// `id=` (or `deviceid=`) more than once.
    case repeatedDevice
    /// `id=` whose value has a `%` not followed by two hex digits, or is not UTF-8.
    case invalidDevice(String)
    /// A `#fragment`, which is never sent to a server.
    case fragment

    static let form = "http[s]://HOST[:PORT]/?id=DEVICE"

    public var description: String {
        switch self {
        case .unsupportedScheme:
            "the Traccar URL must start with http:// or https:// (\(Self.form))"
        case .missingHost:
            "the Traccar URL has no host: \(Self.form)"
        case .invalidHost(let host):
            "the Traccar URL's host '\(host)' is not a name, an IPv4 address or an [IPv6] address"
        case .invalidPort(let port):
            "the Traccar URL's port '\(port)' is not a number from 1 to 65535"
        case .missingDevice:
            "the Traccar URL has no device identifier: \(Self.form), with the identifier the device has in Traccar"
        case .emptyDevice:
            "the Traccar URL's device identifier (id=) is empty"
        case .repeatedDevice:
            "the Traccar URL names the device more than once (id= or deviceid=)"
        case .invalidDevice(let parameter):
            "the Traccar URL's '\(parameter)' has a '%' not followed by two hex digits, or is not UTF-8"
        case .fragment:
            "the Traccar URL has a '#' fragment, which is never sent to the server"
        }
    }
}
