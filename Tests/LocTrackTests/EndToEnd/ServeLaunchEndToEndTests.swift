import Foundation
import LocTrack
@testable import LocTrackCLI
import LocTrackTestSupport
import LocTrackServeOptions
import Testing

extension EndToEndTests {
    /// `loctrack serve` parses its command line, then becomes `loctrack-serve` (exec), handed
    /// the parsed options in one form (`--options` and a JSON object); here a script stands in
    /// for the server, so no server needs to be built.
    @Suite("serve: loctrack checks the command line, then runs loctrack-serve", .timeLimit(.minutes(1)))
    struct ServeLaunch {
        /// A stand-in for the server, committed with the tests (Fixtures/scripts/fake-serve.sh):
        /// it prints its arguments, then becomes grep, which prints its own signal mask and
        /// ignored signals (the shell's would show what the shell blocks while it waits for a
        /// child), all inherited from the process loctrack became. Never written at test time:
        /// a file this process writes may still be open for writing in a child that another
        /// test is forking, and exec would fail with ETXTBSY.
        static let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/scripts/fake-serve.sh").path

        @Test("given a server when loctrack serve runs then the server is handed the parsed options once, in one form, no signal blocked, SIGPIPE not ignored")
        func execsTheServerWithTheParsedOptions() async throws {
            let server = Self.server
            let words = ["--listen", "8080", "--tiles-attribution=© a b", "--tiles", "https://t.org/{z}/{x}/{y}", "host:2948"]
            let result = try await LoctrackProcess.run(["serve"] + words, environment: ["LOCTRACK_SERVE": server])
            #expect(result.status == .exited(0), "\(result)")
            let handed = result.stdoutLines.filter { $0.hasPrefix("arg:") }.map { String($0.dropFirst(4)) }
            // What the server reads back is what loctrack parsed, not the words again.
            let options = try ServeOptions(handoff: handed)
            #expect(options == (try ServeOptions(arguments: words)), "\(result)")
            #expect(options.listen.description == "127.0.0.1:8080")
            #expect(options.tiles?.attribution == "© a b")
            #expect(options.source == GPSDSource(host: "host", port: "2948"))
            #expect(handed.first == ServeOptions.handoffFlag && handed.count == 2, "\(result)")
            let masks = Dictionary(uniqueKeysWithValues: result.stdoutLines.compactMap { line -> (String, UInt64)? in
                let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, let value = UInt64(parts[1], radix: 16) else { return nil }
                return (parts[0], value)
            })
            #expect(masks["SigBlk"] == 0, "\(result)")
            let pipeBit: UInt64 = 1 << (13 - 1)
            #expect(masks["SigIgn"].map { $0 & pipeBit } == 0, "\(result)")
            #expect(result.stderr.isEmpty)
        }

        @Test("given a wrong serve command line when run then it is one line and 64, and the server never runs",
              arguments: [["--listen", "1.2.3"], ["--listen", "0.0.0.0:80"], ["--bogus"], ["--tiles", "ftp://x/{z}/{x}/{y}"]])
        func usageErrorsComeFirst(words: [String]) async throws {
            let server = Self.server
            let result = try await LoctrackProcess.run(["serve"] + words, environment: ["LOCTRACK_SERVE": server])
            #expect(result.status == .exited(64), "\(result)")
            #expect(result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix("loctrack: "), "\(result)")
            #expect(result.stdout.isEmpty)
        }

        @Test("given no server where LOCTRACK_SERVE points when loctrack serve runs then it is one line naming it, and 69")
        func missingServer() async throws {
            let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString)").path
            let result = try await LoctrackProcess.run(["serve"], environment: ["LOCTRACK_SERVE": missing])
            #expect(result.status == .exited(69), "\(result)")
            #expect(result.stderrLines == ["loctrack: cannot serve: loctrack-serve is not installed (looked for \(missing))"])
        }

        @Test("given serve --help when run then the help is printed by loctrack itself, without a server")
        func helpNeedsNoServer() async throws {
            let result = try await LoctrackProcess.run(["serve", "--help"], environment: ["LOCTRACK_SERVE": "/nonexistent"])
            #expect(result.status == .exited(0), "\(result)")
            #expect(result.stdout.hasPrefix("Usage: loctrack serve [--listen ADDR:PORT]"))
        }
    }
}
