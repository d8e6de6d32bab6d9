import LocTrackFormats
import LocTrackSinks
/// The shells `loctrack completions SHELL` writes a completion script for.
public enum CompletionShell: String, Equatable, Sendable, CaseIterable {
    case bash
    case zsh
    case fish

    /// "bash, zsh or fish", for usage messages.
    static var names: String {
        let all = allCases.map(\.rawValue)
        return all.dropLast().joined(separator: ", ") + " or " + all[all.count - 1]
    }

    /// The script, generated from `commands` (loctrack's ``OptionTable`` unless a test gives another).
    func script(for commands: [CommandSpec] = OptionTable.commands) -> String {
        let model = CompletionModel(commands: commands)
        return switch self {
        case .bash: BashCompletion.script(model)
        case .zsh: ZshCompletion.script(model)
        case .fish: FishCompletion.script(model)
        }
    }
}
