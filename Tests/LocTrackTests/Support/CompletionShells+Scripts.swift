import Foundation
@testable import LocTrackCLI
import LocTrackTestSupport
@testable import LocTrackFormats
@testable import LocTrackSinks

/// ``CompletionShells`` with loctrack's own completion scripts.
extension CompletionShells {
    static func bash(_ commandLines: [[String]], in directory: URL? = nil) async throws -> [[String]] {
        try await bash(commandLines, script: CompletionShell.bash.script(), in: directory)
    }

    static func fish(_ commandLines: [String]) async throws -> [[String]] {
        try await fish(commandLines, script: CompletionShell.fish.script())
    }

    static func zsh(_ commandLines: [String]) async throws -> [[String]] {
        try await zsh(commandLines, script: CompletionShell.zsh.script())
    }

    /// `shell -n script`: a syntax check without running it.
    static func syntaxCheck(_ shell: CompletionShell) async throws {
        try await syntaxCheck(shell.rawValue, script: shell.script())
    }
}
