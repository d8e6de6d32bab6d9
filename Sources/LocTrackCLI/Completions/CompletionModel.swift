import LocTrackFormats
import LocTrackSinks
/// What every shell's completion script is made of, read off the option table once: the
/// command tree, which options take a value, and quoting. The generators
/// (``BashCompletion``, ``ZshCompletion``, ``FishCompletion``) only lay it out in their
/// shell's syntax; they are pure functions of this model, so tests can run them on any table.
struct CompletionModel {
    static let program = "loctrack"

    /// Parents before their subcommands; the first is the program itself (the empty path).
    let commands: [CommandSpec]

    /// - Parameter commands: the table; hidden commands (loctrack's own) are left out.
    init(commands: [CommandSpec]) {
        self.commands = commands.filter { !$0.isHidden }
    }

    /// The commands one word below `parent`.
    func subcommands(of parent: CommandSpec) -> [CommandSpec] {
        commands.filter { $0.words.count == parent.words.count + 1 && $0.words.starts(with: parent.words) }
    }

    /// `"monitor:add"`-style keys: the path so far, then a word that descends into a subcommand.
    /// The bash and fish scripts walk the typed words with these to find the command path.
    var subcommandKeys: [String] {
        commands.filter { !$0.words.isEmpty }.map { spec in
            spec.words.dropLast().joined(separator: " ") + ":" + spec.name
        }
    }

    /// `"stream:--format"`-style keys: the path, then a spelling of an option that takes a
    /// value (the next word is that value, not a subcommand or an operand).
    var valueOptionKeys: [String] {
        commands.flatMap { spec in
            spec.options.filter(\.value.takesValue).flatMap { option in option.names.map { spec.path + ":" + $0 } }
        }
    }

    /// Keys as above for the options whose value is completed by kind, grouped by that kind
    /// (choices, files, directories), in table order. Numbers, URLs and free text get none.
    var completedValues: [(value: OptionValue, keys: [String])] {
        var groups: [(value: OptionValue, keys: [String])] = []
        for spec in commands {
            for option in spec.options where option.value.isCompleted {
                let keys = option.names.map { spec.path + ":" + $0 }
                if let index = groups.firstIndex(where: { $0.value == option.value }) {
                    groups[index].keys += keys
                } else {
                    groups.append((option.value, keys))
                }
            }
        }
        return groups
    }

    /// A name usable in a shell function's name: `monitor add` → `monitor_add`.
    static func identifier(_ path: String) -> String {
        String(path.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// `text` in POSIX single quotes (bash, zsh): nothing inside is expanded.
    static func singleQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: #"'\''"#) + "'"
    }
}

extension OptionValue {
    /// Whether a shell can offer candidates for it: choices, files, directories.
    var isCompleted: Bool {
        switch self {
        case .choice, .file, .directory: true
        case .none, .number, .integer, .url, .text: false
        }
    }

    /// The choices of a `.choice`, else none.
    var choices: [String] {
        if case .choice(let choices) = self { choices } else { [] }
    }
}

extension String {
    /// Every `target` replaced by `replacement` (no Foundation in this module).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
