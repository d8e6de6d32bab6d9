package import Foundation
import Glibc

/// Runs completion scripts (loctrack's, given as text) in the real shells and reports what each offered.
/// Every function asks one shell process for many command lines at once: a shell costs
/// tens of milliseconds to start, zsh with `compinit` several hundred.
package enum CompletionShells {
    /// The shell's path when it is installed (`make test` installs zsh and fish), else nil.
    package static func path(of shell: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(shell)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether a pseudo-terminal can be opened (zsh's interactive completion runs on one);
    /// a container may have no /dev/ptmx.
    package static let hasPseudoTerminals: Bool = {
        let descriptor = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }()

    /// bash: for each command line (its words, the last one being completed, as bash splits
    /// them: `--format=g` is `--format`, `=`, `g`), `_loctrack`'s COMPREPLY.
    package static func bash(_ commandLines: [[String]], script text: String, in directory: URL? = nil) async throws -> [[String]] {
        let script = try write(text, named: "loctrack.bash")
        var program = "source \(posixQuoted(script.path)) || exit 1\n"
        if let directory { program += "cd \(posixQuoted(directory.path)) || exit 1\n" }
        program += """
            complete_words() {
                COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
                _loctrack
                ((${#COMPREPLY[@]})) && printf '%s\\n' "${COMPREPLY[@]}"
                echo '\(separator)'
            }

            """
        for words in commandLines {
            program += "complete_words " + words.map(posixQuoted).joined(separator: " ") + "\n"
        }
        let output = try await run("bash", ["--norc", "--noprofile", "-c", program])
        return split(output, expecting: commandLines.count)
    }

    /// fish: for each command line (text up to the cursor), the candidates of `complete -C`
    /// that fish offers on Tab.
    ///
    /// fish 4 filters option completions by fuzzy subsequence, as it did other completions
    /// ("`--fb` may be completed to `--foobar` if there is no better match", its 4.0 release
    /// notes), and `complete -C` lists every match, better or not: for `serve --t` also
    /// `--listen`, `--max-streams`… On Tab fish offers only the best kind of match, so where
    /// some candidates start with the word typed, only those are kept (fish 3 listed only
    /// those anyway).
    package static func fish(_ commandLines: [String], script text: String) async throws -> [[String]] {
        let script = try write(text, named: "loctrack.fish")
        var program = "source \(fishQuoted(script.path)); or exit 1\n"
        for line in commandLines {
            program += "complete -C \(fishQuoted(line)) | string replace -r '\\t.*' ''\necho '\(separator)'\n"
        }
        let output = try await run("fish", ["--no-config", "-c", program])
        return zip(commandLines, split(output, expecting: commandLines.count)).map { line, candidates in
            let word = line.split(separator: " ", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            let prefixed = candidates.filter { $0.hasPrefix(word) }
            return prefixed.isEmpty ? candidates : prefixed
        }
    }

    /// zsh: for each command line (text up to the cursor), what `_loctrack` hands to
    /// `compadd` when Tab is pressed in an interactive zsh on a pseudo-terminal (zpty),
    /// with the script autoloaded from `$fpath` as `make install` puts it.
    package static func zsh(_ commandLines: [String], script text: String) async throws -> [[String]] {
        let directory = try temporaryDirectory()
        let script = directory.appendingPathComponent("_loctrack")
        try text.write(to: script, atomically: true, encoding: .utf8)
        let output = try await run("zsh", ["-f", "-c", zptyDriver, "zsh", directory.path] + commandLines)
        // Each candidate was printed as `<hit>candidate` on the terminal, among zle's output.
        var results: [[String]] = []
        // A terminal ends lines with \r\n, which Swift reads as one Character: drop the \r.
        let text = output.replacingOccurrences(of: "\r", with: "")
        for block in text.components(separatedBy: separator).dropLast() {
            var hits: [String] = []
            for line in block.components(separatedBy: "\n") {
                guard let range = line.range(of: "<hit>") else { continue }
                let hit = String(line[range.upperBound...]).trimmingCharacters(in: .controlCharacters)
                if !hits.contains(hit) { hits.append(hit) }
            }
            results.append(hits.sorted())
        }
        guard results.count == commandLines.count else {
            throw HarnessError("zsh answered \(results.count) of \(commandLines.count) command lines:\n\(output)")
        }
        return results
    }

    /// `shell -n script`: a syntax check without running it.
    package static func syntaxCheck(_ shell: String, script text: String) async throws {
        let script = try write(text, named: "loctrack.\(shell)")
        _ = try await run(shell, ["-n", script.path])
    }

    // MARK: - Running

    private static let separator = "<done>"

    /// The zsh program that types each command line into an interactive zsh followed by Tab.
    /// `compadd` is wrapped to print its matches; the line is then cleared and a marker
    /// printed. The driver reads up to the marker and the next prompt before typing on:
    /// zsh drops what is typed before its line editor starts, so nothing may depend on timing.
    private static let zptyDriver = #"""
        zmodload zsh/zpty || exit 1
        zpty shell zsh -f -i
        zpty -w shell "PS1='@prompt@' RPS1='' LISTMAX=100000; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
        zpty -w shell 'compadd() { builtin compadd -O __hits "$@"; print -rl -- "<hit>"${^__hits} >/dev/tty; builtin compadd "$@" }'
        zpty -w shell "bindkey -e; bindkey '^I' complete-word; print '=rea''dy='"
        zpty -r shell out "*=ready=*@prompt@" || exit 1
        shift
        integer i=0
        for line in "$@"; do
            (( i++ ))
            zpty -n -w shell "$line"$'\t\C-e\C-u'
            zpty -w shell "print '=do''ne $i='"
            zpty -r shell out "*=done $i=*@prompt@" || exit 1
            print -r -- "${out%=done $i=*}"
            print -r -- '<done>'
        done
        zpty -d shell
        """#

    private static func run(_ shell: String, _ arguments: [String]) async throws -> String {
        guard let executable = path(of: shell) else { throw HarnessError("\(shell) is not installed") }
        let process = try ChildProcess(
            executable: executable, arguments: [executable] + arguments, stdin: .null, stdout: .pipe, stderr: .pipe)
        let result = try await process.result(timeLimit: .seconds(30))
        guard result.status == .exited(0) else {
            throw HarnessError("\(shell) \(result.status)\n--- stdout ---\n\(result.stdout)--- stderr ---\n\(result.stderr)")
        }
        return result.stdout
    }

    /// The output's blocks, one per command line, each ended by the separator line.
    private static func split(_ output: String, expecting count: Int) -> [[String]] {
        var blocks: [[String]] = [[]]
        for line in output.components(separatedBy: "\n") {
            if line == separator {
                blocks.append([])
            } else if !line.isEmpty {
                blocks[blocks.count - 1].append(line)
            }
        }
        return Array(blocks.prefix(count))
    }

    package static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loctrack-completions-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private static func write(_ text: String, named name: String) throws -> URL {
        let file = try temporaryDirectory().appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    private static func posixQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
