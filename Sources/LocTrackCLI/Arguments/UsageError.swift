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
    case invalidSource(String)

    public var description: String {
        switch self {
        case .missingCommand:
            "missing command (stream or once); try 'loctrack --help'"
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
        case .invalidSource(let reason):
            "invalid source \(reason); expected [host][:port[:device]]"
        }
    }
}
