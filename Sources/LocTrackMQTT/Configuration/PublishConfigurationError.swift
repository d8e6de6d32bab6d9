/// A broker URL or a publishing option that cannot be used. Its description is one
/// line, without the password or anything else secret.
public enum PublishConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL does not start with `mqtt://` or `mqtts://`.
    case unsupportedScheme
    /// `user:password@`: a password on the command line shows in `ps`.
    case passwordInURL
    /// `@` with nothing before it, or a `%` not followed by two hex digits.
    case invalidUser
    case missingHost
    /// Not a name, an IPv4 address or a bracketed IPv6 address.
    case invalidHost(String)
    /// Not a number from 1 to 65535.
    case invalidPort(String)
    case missingTopic
    /// A topic with `+`, `#` or NUL, a leading `$`, or longer than MQTT allows; `reason` says which.
    case invalidTopic(reason: String)
    /// `--password-file` could not be read.
    case unreadablePasswordFile(path: String, reason: String)
    /// No `--spool`, and no state folder: neither `XDG_STATE_HOME` nor `HOME` is an absolute
    /// path, and the password database has no home.
    case noSpoolDirectory

    public var description: String {
        switch self {
        case .unsupportedScheme:
            "the broker URL must start with mqtt:// or mqtts://"
        case .passwordInURL:
            "the broker URL must not contain a password (it would show in ps): "
                + "use LOCTRACK_MQTT_PASSWORD or --password-file"
        case .invalidUser:
            "the broker URL's user is empty or has a '%' not followed by two hex digits"
        case .missingHost:
            "the broker URL has no host: mqtt[s]://[USER@]HOST[:PORT]/TOPIC"
        case .invalidHost(let host):
            "the broker URL's host '\(host)' is not a name, an IPv4 address or an [IPv6] address"
        case .invalidPort(let port):
            "the broker URL's port '\(port)' is not a number from 1 to 65535"
        case .missingTopic:
            "the broker URL has no topic: mqtt[s]://[USER@]HOST[:PORT]/TOPIC"
        case .invalidTopic(let reason):
            "the broker URL's topic \(reason)"
        case .unreadablePasswordFile(let path, let reason):
            "cannot read the password file '\(path)': \(reason)"
        case .noSpoolDirectory:
            "no spool directory: XDG_STATE_HOME and HOME are unset or not absolute, and the password database "
                + "has no home; use --spool DIR"
        }
    }
}
