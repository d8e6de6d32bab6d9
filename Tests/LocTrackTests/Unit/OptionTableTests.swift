import LocTrack
@testable import LocTrackCLI
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// The option table against the parser: every entry must be an option the parser handles,
/// with the kind of value the table says. (The other way round, an option the parser handles
/// but the table lacks, is rejected by ``ArgumentScanner`` and fails that option's own tests.)
@Suite("Option table", .timeLimit(.minutes(1)))
struct OptionTableTests {
    /// Every (command, option) pair of the table.
    static let entries = OptionTable.commands.flatMap { spec in spec.options.map { (spec, $0) } }

    /// Commands whose arguments go through ``ArgumentScanner`` (not loctrack's own options,
    /// not `help`, whose only argument is a topic).
    static let scanned = OptionTable.commands.filter { !$0.path.isEmpty && $0.path != "help" }

    /// Values the parser accepts for `option` on its own (nil: a flag, no value).
    static func samples(for option: OptionSpec) -> [String?] {
        switch option.value {
        case .none: [nil]
        case .number, .integer: ["1"]
        case .choice(let choices): choices
        case .file: ["/tmp/track.gpx"]
        case .directory: ["/tmp"]
        case .url: [option.long == "--tiles" ? "https://tile.example.org/{z}/{x}/{y}.png" : "mqtt://broker.local/owntracks/alice/car"]
        case .text:
            switch option.long {
            case "--circle": ["52.5163,13.3777,80"]
            case "--tid": ["ab"]
            case "--spool-limit": ["100M"]
            case "--listen": ["127.0.0.1:8080", "8080"]
            default: ["name"]
            }
        }
    }

    @Test("given every option of every command with a valid value when parsed then the parser knows it",
          arguments: entries)
    func everyOptionIsParsed(spec: CommandSpec, option: OptionSpec) {
        for name in option.names {
            for value in Self.samples(for: option) {
                let arguments = spec.words + [name] + (value.map { [$0] } ?? [])
                do throws(UsageError) {
                    _ = try Command(arguments: arguments)
                } catch {
                    // Other options may be needed (--qos needs --publish): that is not this test's business.
                    switch error {
                    case .unknownOption, .unexpectedValue:
                        Issue.record("\(arguments): \(error)")
                    case .missingValue(let missing) where missing == option.long:
                        // (Another option's missing value is another option's business:
                        // the track writer needs both --format and --output.)
                        Issue.record("\(arguments): \(error)")
                    case .invalidValue where option.value.choices.contains(value ?? ""):
                        Issue.record("\(arguments): the table offers a choice the parser rejects: \(error)")
                    default:
                        break
                    }
                }
            }
        }
    }

    @Test("given an option that takes a value without one when parsed then the value is missing",
          arguments: entries.filter { $0.1.value.takesValue })
    func valueOptionsNeedAValue(spec: CommandSpec, option: OptionSpec) {
        for name in option.names {
            #expect(throws: UsageError.missingValue(option: option.long)) { try Command(arguments: spec.words + [name]) }
        }
    }

    @Test("given a flag with =VALUE when parsed then the value is unexpected",
          arguments: entries.filter { spec, option in
              !option.value.takesValue && option.long != "--help" && scanned.contains(spec)
          })
    func flagsTakeNoValue(spec: CommandSpec, option: OptionSpec) {
        #expect(throws: UsageError.unexpectedValue("x", option: option.long)) {
            try Command(arguments: spec.words + [option.long + "=x"])
        }
    }

    @Test("given an option no command has when parsed then each command rejects it by name",
          arguments: OptionTable.commands.filter { $0.path != "help" })
    func unknownOptions(spec: CommandSpec) {
        #expect(throws: UsageError.unknownOption("--no-such-option", command: spec.path.isEmpty ? nil : spec.path)) {
            try Command(arguments: spec.words + ["--no-such-option"])
        }
    }

    @Test("given each choice of a command's operand when parsed then it is accepted",
          arguments: OptionTable.commands.filter { !($0.operand?.value.choices.isEmpty ?? true) })
    func operandChoices(spec: CommandSpec) throws {
        for choice in spec.operand?.value.choices ?? [] {
            _ = try Command(arguments: spec.words + [choice])
        }
    }

    @Test("given every command path with --help when parsed then it is that command's help",
          arguments: scanned.filter { $0.option(named: "--help") != nil })
    func everyPathExists(spec: CommandSpec) throws {
        guard case .help = try Command(arguments: spec.words + ["--help"]) else {
            Issue.record("\(spec.path) --help is not help")
            return
        }
    }

    @Test("given every option of every command when its help is printed then the help names it",
          arguments: OptionTable.commands.filter { !$0.isHidden && !$0.words.isEmpty })
    func helpNamesEveryOption(spec: CommandSpec) throws {
        let topic = try #require(HelpTopic(rawValue: spec.words[0]))
        let text = HelpText.text(for: topic)
        for option in spec.options {
            #expect(text.contains(option.long), "loctrack help \(topic.rawValue) lacks \(option.long)")
        }
    }

    @Test("given the table when read then no command spells two options alike and every word is shell-safe")
    func spellings() {
        for spec in OptionTable.commands {
            let names = spec.options.flatMap(\.names)
            #expect(Set(names).count == names.count, "\(spec.path): \(names)")
            // The completion scripts quote everything, but plain words keep them readable.
            let words = spec.words + names + spec.options.flatMap(\.value.choices) + (spec.operand?.value.choices ?? [])
            for word in words {
                #expect(word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }, "\(word)")
            }
            #expect(spec.options.allSatisfy { !$0.summary.isEmpty && !$0.summary.contains("\n") })
        }
    }
}

// Short names in test reports: "monitor add", "--assume".
extension CommandSpec: CustomTestStringConvertible {
    public var testDescription: String { path.isEmpty ? "loctrack" : path }
}

extension OptionSpec: CustomTestStringConvertible {
    public var testDescription: String { long }
}
