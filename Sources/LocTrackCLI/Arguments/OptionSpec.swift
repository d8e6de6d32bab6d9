import LocTrackFormats
import LocTrackSinks
/// What an option (or a command's operand) takes as its value. The parser reads the value
/// itself (the `switch` of each command); this says only which kind it is, so that
/// ``ArgumentScanner`` knows the option exists and the shell completions know what to offer.
enum OptionValue: Equatable, Sendable {
    /// A flag: `--verbose`.
    case none
    /// A decimal number: metres, seconds.
    case number
    /// A whole number: `--count`.
    case integer
    /// One of a fixed list, taken from the type the parser reads it into (`OutputFormat.allCases`).
    case choice([String])
    /// A file name (completions offer files).
    case file
    /// A directory name (completions offer directories).
    case directory
    /// A URL: `--publish mqtt://…`.
    case url
    /// Anything else: a name, an id, `LAT,LON,RADIUS`, a size.
    case text

    var takesValue: Bool { self != .none }
}

/// One option of one command: its spellings, its value and a one-line summary.
struct OptionSpec: Equatable, Sendable {
    /// `--format`.
    let long: String
    /// `-v`, or nil.
    let short: String?
    let value: OptionValue
    /// The value's name in messages: `FORMAT`, `SECONDS` (empty for a flag).
    let placeholder: String
    /// One line, lower case, no final full stop: what the shells show beside the option.
    let summary: String
    /// May be given more than once, each time meaning more (`--publish`, `--output`, and the
    /// companions of each `--publish`): completions offer it again.
    let repeats: Bool

    /// An option that takes a value: `OptionSpec("--count", .integer, "N", "exit 0 after N fixes")`.
    init(_ long: String, short: String? = nil, _ value: OptionValue, _ placeholder: String, _ summary: String,
         repeats: Bool = false) {
        self.long = long
        self.short = short
        self.value = value
        self.placeholder = placeholder
        self.summary = summary
        self.repeats = repeats
    }

    /// A flag: `OptionSpec("--verbose", short: "-v", "report …")`.
    init(_ long: String, short: String? = nil, _ summary: String, repeats: Bool = false) {
        self.init(long, short: short, .none, "", summary, repeats: repeats)
    }

    /// Every spelling: long first.
    var names: [String] { [long] + (short.map { [$0] } ?? []) }
}

/// The positional argument a command takes after its options: one (SOURCE, ID, …), or one
/// or more (trips' FILE…).
struct OperandSpec: Equatable, Sendable {
    /// `SOURCE`, `TOPIC`.
    let name: String
    let value: OptionValue
    /// Whether the command runs without it (stream's SOURCE) or needs it (completions' SHELL).
    let isOptional: Bool
    /// Whether it may be given more than once (trips' FILE…): completions offer it again.
    let repeats: Bool

    init(name: String, value: OptionValue, isOptional: Bool, repeats: Bool = false) {
        self.name = name
        self.value = value
        self.isOptional = isOptional
        self.repeats = repeats
    }
}

/// One command path (`stream`, `monitor add`; the empty path is `loctrack` itself) and what it accepts.
struct CommandSpec: Equatable, Sendable {
    /// The words after `loctrack`, joined by one space: `monitor add`.
    let path: String
    let summary: String
    let options: [OptionSpec]
    let operand: OperandSpec?
    /// loctrack's own (the track writer `--output` starts), not for people: the
    /// completions leave it out.
    let isHidden: Bool

    init(_ path: String, _ summary: String, options: [OptionSpec], operand: OperandSpec? = nil, isHidden: Bool = false) {
        self.path = path
        self.summary = summary
        self.options = options
        self.operand = operand
        self.isHidden = isHidden
    }

    /// The path's words: `["monitor", "add"]`; none for `loctrack` itself.
    var words: [String] { path.split(separator: " ").map(String.init) }

    /// The last word (what is typed to reach this command from its parent); empty for the root.
    var name: String { words.last ?? "" }

    /// The option spelled `name` (long or short), or nil when this command has none such.
    func option(named name: String) -> OptionSpec? {
        options.first { $0.long == name || $0.short == name }
    }
}
