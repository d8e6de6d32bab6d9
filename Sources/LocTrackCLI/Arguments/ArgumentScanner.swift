import LocTrackMQTT
import LocTrackFormats
import LocTrackSinks

/// Walks the arguments of one command: `--name value`, `--name=value`, `--` and positionals.
/// An option that is not in the command's ``OptionTable`` entry is an unknown option, whatever
/// the command's `switch` would do with it: the table is the one list of what exists.
struct ArgumentScanner {
    enum Argument: Equatable {
        case option(String)
        case positional(String)
    }

    private var remaining: ArraySlice<String>
    private var pendingValue: String?
    private var currentOption = ""
    private var onlyPositionals = false
    private let spec: CommandSpec
    /// The command path, for messages: `monitor add`.
    var command: String { spec.path }

    init(_ arguments: ArraySlice<String>, command spec: CommandSpec) {
        self.remaining = arguments
        self.spec = spec
    }

    mutating func next() throws(UsageError) -> Argument? {
        if let pendingValue {
            throw UsageError.unexpectedValue(pendingValue, option: currentOption)
        }
        guard let argument = remaining.popFirst() else { return nil }
        if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
            return .positional(argument)
        }
        if argument == "--" {
            onlyPositionals = true
            return try next()
        }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            currentOption = try known(String(argument[..<equals]))
            pendingValue = String(argument[argument.index(after: equals)...])
            return .option(currentOption)
        }
        currentOption = try known(argument)
        return .option(argument)
    }

    private func known(_ option: String) throws(UsageError) -> String {
        guard spec.option(named: option) != nil else { throw UsageError.unknownOption(option, command: command) }
        return option
    }

    /// The value of the option just returned by ``next()``.
    mutating func value(for option: String) throws(UsageError) -> String {
        if let pendingValue {
            self.pendingValue = nil
            return pendingValue
        }
        guard let value = remaining.popFirst() else { throw UsageError.missingValue(option: option) }
        return value
    }

    mutating func positiveNumber(for option: String, unit: String) throws(UsageError) -> Double {
        let text = try value(for: option)
        guard let number = Double(text), number.isFinite, number > 0 else {
            throw UsageError.invalidValue(text, option: option, expected: "a positive number of \(unit)")
        }
        return number
    }

    /// `stream`'s `--min-accuracy`: a positive number of metres, or `off` (nil: no limit at
    /// all, not even the default for OwnTracks brokers).
    mutating func accuracyLimit(for option: String) throws(UsageError) -> Double? {
        let text = try value(for: option)
        if text == "off" { return nil }
        guard let number = Double(text), number.isFinite, number > 0 else {
            throw UsageError.invalidValue(text, option: option, expected: "a positive number of metres, or off")
        }
        return number
    }

    mutating func nonNegativeNumber(for option: String, unit: String) throws(UsageError) -> Double {
        let text = try value(for: option)
        guard let number = Double(text), number.isFinite, number >= 0 else {
            throw UsageError.invalidValue(text, option: option, expected: "a number of \(unit), 0 or more")
        }
        return number
    }

    mutating func positiveInteger(for option: String) throws(UsageError) -> Int {
        let text = try value(for: option)
        guard let number = Int(text), number > 0 else {
            throw UsageError.invalidValue(text, option: option, expected: "a whole number of 1 or more")
        }
        return number
    }

    mutating func format() throws(UsageError) -> OutputFormat {
        let text = try value(for: "--format")
        guard let format = OutputFormat(rawValue: text) else {
            throw UsageError.invalidValue(
                text, option: "--format",
                expected: "one of " + OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return format
    }

    /// A non-empty value: a file or directory name.
    mutating func path(for option: String, expected: String) throws(UsageError) -> String {
        let text = try value(for: option)
        guard !text.isEmpty else { throw UsageError.invalidValue(text, option: option, expected: expected) }
        return text
    }

    /// `--tid`: one or two letters or digits.
    mutating func trackerID() throws(UsageError) -> String {
        let text = try value(for: "--tid")
        guard PublishOptions.isValidTrackerID(text) else {
            throw UsageError.invalidValue(text, option: "--tid", expected: "one or two letters or digits")
        }
        return text
    }
}
