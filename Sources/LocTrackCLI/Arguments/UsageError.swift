import LocTrackFormats
import LocTrackSinks
/// A command line loctrack cannot run. Its description is the one line printed
/// on stderr (after `loctrack: `); the exit code is 64 (EX_USAGE).
public enum UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingCommand
    case unknownCommand(String)
    case unknownOption(String, command: String?)
    case missingValue(option: String)
    case unexpectedValue(String, option: String)
    case invalidValue(String, option: String, expected: String)
    case unexpectedArgument(String, command: String)
    /// A command's operand that is not one of its choices: `completions tcsh`.
    case invalidArgument(String, command: String, expected: String)
    /// A command without the operand it needs: `completions` without a shell.
    case missingArgument(command: String, expected: String)
    case invalidSource(String)
    case missingSubcommand(command: String)
    case unknownSubcommand(String, command: String)
    case missingIdentifier(command: String)
    /// `monitor add` without `--circle` or `--geojson`.
    case missingRegion
    case conflictingOptions(String, String)
    /// An option that only means something with another, e.g. `--qos` without `--publish`.
    case needs(String, what: String)
    /// `--publish` with a format that is not one message per line (csv, gpx).
    case publishNeedsLineFormat
    /// `--publish` with a URL that cannot be used; the reason never repeats a password.
    case invalidBrokerURL(reason: String)
    /// Two `--publish` to one broker with one client id: the broker keeps one connection
    /// per client id, so each would keep pushing the other off.
    case sharedBrokerSession(broker: String, clientID: String)
    /// Two `--publish` with one spool folder: a spool belongs to one broker connection.
    case sharedSpool(String)
    /// The same `--output` twice: two track writers cannot share a file.
    case duplicateOutput(String)
    /// `serve --listen` on an address other computers reach, without `--token-file`.
    case listenNeedsToken(String)

    public var description: String {
        switch self {
        case .missingCommand:
            "missing command (stream, once, monitor, serve or trips); try 'loctrack --help'"
        case .unknownCommand(let name):
            "unknown command '\(name)'; try 'loctrack --help'"
        case .unknownOption(let option, let command?):
            "unknown option '\(option)' for '\(command)'; try 'loctrack help \(command)'"
        case .unknownOption(let option, nil):
            "unknown option '\(option)'; try 'loctrack --help'"
        case .missingValue(let option):
            "option '\(option)' needs a value"
        case .unexpectedValue(let value, let option):
            "option '\(option)' takes no value (got '\(value)')"
        case .invalidValue(let value, let option, let expected):
            "invalid value '\(value)' for '\(option)': expected \(expected)"
        case .unexpectedArgument(let argument, let command):
            "unexpected argument '\(argument)' for '\(command)'; try 'loctrack help \(command)'"
        case .invalidArgument(let argument, let command, let expected):
            "invalid argument '\(argument)' for '\(command)': expected \(expected)"
        case .missingArgument(let command, let expected):
            "'\(command)' needs \(expected); try 'loctrack help \(command)'"
        case .invalidSource(let reason):
            "invalid source \(reason); expected [host][:port[:device]]"
        case .missingSubcommand(let command):
            "'\(command)' needs a subcommand (add, remove, list, run or export); try 'loctrack help \(command)'"
        case .unknownSubcommand(let name, let command):
            "unknown subcommand '\(name)' for '\(command)' (add, remove, list, run or export); try 'loctrack help \(command)'"
        case .missingIdentifier(let command):
            "'\(command)' needs a condition id"
        case .missingRegion:
            "'monitor add' needs a region: --circle LAT,LON,RADIUS or --geojson FILE"
        case .conflictingOptions(let first, let second):
            "\(first) and \(second) cannot be used together"
        case .needs(let option, let what):
            "\(option) needs \(what)"
        case .publishNeedsLineFormat:
            "--publish sends one message per line: use --format json, geojson, owntracks or text"
        case .invalidBrokerURL(let reason):
            "--publish: \(reason)"
        case .sharedBrokerSession(let broker, let clientID):
            "two --publish connect to \(broker) as client id '\(clientID)': give one of them its own --client-id"
        case .sharedSpool(let folder):
            SinkStartError.sharedSpool(folder).description
        case .duplicateOutput(let path):
            "--output \(path) is given twice: two track writers cannot share a file"
        case .listenNeedsToken(let address):
            "--listen \(address) is not a loopback address, so other computers can connect: give --token-file FILE too"
        }
    }
}
