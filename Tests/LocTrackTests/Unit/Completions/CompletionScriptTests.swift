import Foundation
import LocTrack
@testable import LocTrackCLI
import LocTrackTestSupport
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// The generated completion scripts, run in the real shells (see `Support/CompletionShells`).
/// zsh and fish are installed by `make test`; where they are missing, their tests are
/// skipped with the reason, and bash (always there) still checks the common logic.
@Suite("Completion scripts", .timeLimit(.minutes(1)))
struct CompletionScriptTests {
    static let formats = OutputFormat.allCases.map(\.rawValue).sorted()
    static let commands = ["completions", "help", "monitor", "odometer", "once", "serve", "stream", "trips"]

    /// Command lines and what every shell must offer for them (sorted), as bash splits them.
    static let cases: [(words: [String], expected: [String])] = [
        (["loctrack", ""], commands),
        (["loctrack", "stream", "--for"], ["--format"]),
        (["loctrack", "stream", "--format", ""], formats),
        (["loctrack", "stream", "--format", "g"], ["geojson", "gpx"]),
        (["loctrack", "once", "-v", "--format", "t"], ["text"]),
        (["loctrack", "monitor", ""], ["add", "export", "list", "remove", "run"]),
        (["loctrack", "monitor", "run", "--format", ""], MonitorCommand.Run.Format.allCases.map(\.rawValue).sorted()),
        (["loctrack", "monitor", "list", "--format", ""], ["json", "text"]),
        (["loctrack", "monitor", "add", "--assume", ""], ["inside", "outside"]),
        // --name's value is skipped: "run" here is not the subcommand.
        (["loctrack", "monitor", "add", "--name", "run", "--as"], ["--assume"]),
        (["loctrack", "stream", "--qos", ""], ["0", "1", "2"]),
        (["loctrack", "completions", ""], ["bash", "fish", "zsh"]),
        (["loctrack", "help", ""], commands),
        (["loctrack", "help", "stream", ""], []),
        (["loctrack", "serve", "--t"], ["--tiles", "--tiles-attribution", "--tiles-file", "--token-file", "--track"]),
        // Repeatable: offered again once given (zsh offers an option once unless it repeats).
        (["loctrack", "serve", "--tiles-file", "harbour.mbtiles", "--tiles-f"], ["--tiles-file"]),
        (["loctrack", "serve", "--listen", "0.0.0.0:80", "--max"], ["--max-streams"]),
        (["loctrack", "trips", "--f"], ["--format"]),
        (["loctrack", "trips", "a.json", "--format", ""], ["csv", "json", "text"]),
    ]

    @Test("given a command line when bash completes the last word then COMPREPLY is what the table says")
    func bashCompletes() async throws {
        let replies = try await CompletionShells.bash(Self.cases.map(\.words))
        for (index, testCase) in Self.cases.enumerated() {
            #expect(replies[index].sorted() == testCase.expected, "\(testCase.words)")
        }
    }

    @Test("given --format=VALUE, which bash splits at '=', when bash completes then it offers the formats")
    func bashCompletesAfterEquals() async throws {
        let replies = try await CompletionShells.bash([
            ["loctrack", "stream", "--format", "="],
            ["loctrack", "stream", "--format", "=", "g"],
            ["loctrack", "stream", "--format", "=", "json", "--min"],
        ])
        #expect(replies.map { $0.sorted() } == [Self.formats, ["geojson", "gpx"], ["--min-accuracy", "--min-distance"]])
    }

    @Test("given every option of every command typed but its last letter when bash completes then it offers it")
    func bashCompletesEveryOption() async throws {
        let entries = OptionTable.commands.filter { !$0.isHidden }.flatMap { spec in spec.options.map { (spec, $0.long) } }
        let replies = try await CompletionShells.bash(entries.map { spec, option in
            ["loctrack"] + spec.words + [String(option.dropLast())]
        })
        for (index, (spec, option)) in entries.enumerated() {
            #expect(replies[index].contains(option), "loctrack \(spec.path) \(option.dropLast())")
        }
    }

    @Test("given a folder with files when bash completes a file option or a directory option then it offers those")
    func bashCompletesPaths() async throws {
        let directory = try CompletionShells.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tracks"), withIntermediateDirectories: true)
        try Data().write(to: directory.appendingPathComponent("track 1.gpx"))
        try Data().write(to: directory.appendingPathComponent("zones.geojson"))
        let replies = try await CompletionShells.bash([
            ["loctrack", "stream", "--output", "tr"],
            ["loctrack", "monitor", "run", "-o", ""],
            ["loctrack", "monitor", "add", "--geojson", "z"],
            ["loctrack", "stream", "--spool", ""],
            ["loctrack", "stream", "--cafile", "="],
            // trips takes any number of files: each is offered after the first.
            ["loctrack", "trips", "z"],
            ["loctrack", "trips", "zones.geojson", "--format", "json", "track"],
        ], in: directory)
        #expect(replies[0].sorted() == ["track 1.gpx", "tracks"])
        #expect(replies[1].sorted() == ["track 1.gpx", "tracks", "zones.geojson"])
        #expect(replies[2] == ["zones.geojson"])
        #expect(replies[3] == ["tracks"])
        #expect(replies[4].sorted() == ["track 1.gpx", "tracks", "zones.geojson"])
        #expect(replies[5] == ["zones.geojson"])
        #expect(replies[6].sorted() == ["track 1.gpx", "tracks"])
    }

    @Test("given a command line when fish completes it then it offers what the table says",
          .enabled(if: RequiredTools.run(ifInstalled: CompletionShells.path(of: "fish") != nil), "fish is not installed (make test installs it)"))
    func fishCompletes() async throws {
        // fish has no '=' split; its own candidates for a value are the same.
        let lines = Self.cases.map { $0.words.joined(separator: " ") }
        let replies = try await CompletionShells.fish(lines)
        for (index, testCase) in Self.cases.enumerated() {
            #expect(replies[index].sorted() == testCase.expected, "\(lines[index])")
        }
    }

    @Test("given a command line when Tab is pressed in an interactive zsh then it offers what the table says",
          .enabled(if: RequiredTools.run(ifInstalled: CompletionShells.path(of: "zsh") != nil), "zsh is not installed (make test installs it)"),
          .enabled(if: CompletionShells.hasPseudoTerminals, "no pseudo-terminal to run an interactive zsh on"))
    func zshCompletes() async throws {
        let lines = Self.cases.map { $0.words.joined(separator: " ") } + ["loctrack stream --format=g"]
        let replies = try await CompletionShells.zsh(lines)
        for (index, testCase) in Self.cases.enumerated() {
            #expect(replies[index] == testCase.expected, "\(lines[index])")
        }
        #expect(replies.last == ["geojson", "gpx"])
    }

    @Test("given the bash script when bash -n checks it then its syntax is accepted")
    func bashSyntax() async throws {
        try await CompletionShells.syntaxCheck(.bash)
    }

    @Test("given the zsh script when zsh -n checks it then its syntax is accepted",
          .enabled(if: RequiredTools.run(ifInstalled: CompletionShells.path(of: "zsh") != nil), "zsh is not installed (make test installs it)"))
    func zshSyntax() async throws {
        try await CompletionShells.syntaxCheck(.zsh)
    }

    @Test("given the fish script when fish -n checks it then its syntax is accepted",
          .enabled(if: RequiredTools.run(ifInstalled: CompletionShells.path(of: "fish") != nil), "fish is not installed (make test installs it)"))
    func fishSyntax() async throws {
        try await CompletionShells.syntaxCheck(.fish)
    }

    @Test("given the built loctrack when run as loctrack completions SHELL then it prints that script and exits 0",
          arguments: CompletionShell.allCases)
    func command(shell: CompletionShell) async throws {
        let result = try await LoctrackProcess.run(["completions", shell.rawValue], timeLimit: .seconds(15))
        #expect(result.status == .exited(0), "\(result)")
        #expect(result.stdout == shell.script())
        #expect(result.stderr.isEmpty)
    }

    @Test("given loctrack completions SHELL when parsed then it is that shell; a missing or unknown shell is a usage error")
    func parsing() throws {
        #expect(try Command(arguments: ["completions", "zsh"]) == .completions(.zsh))
        #expect(try Command(arguments: ["completions", "--help"]) == .help(topic: .completions))
        #expect(throws: UsageError.missingArgument(command: "completions", expected: "bash, zsh or fish")) {
            try Command(arguments: ["completions"])
        }
        #expect(throws: UsageError.invalidArgument("tcsh", command: "completions", expected: "bash, zsh or fish")) {
            try Command(arguments: ["completions", "tcsh"])
        }
        #expect(throws: UsageError.unexpectedArgument("zsh", command: "completions")) {
            try Command(arguments: ["completions", "bash", "zsh"])
        }
    }
}
