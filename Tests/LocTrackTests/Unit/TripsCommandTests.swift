import LocTrack
@testable import LocTrackCLI
import LocTrackProcess
import LocTrackServeOptions
import LocTrackSystem
import Testing

/// `loctrack trips`' words, its handoff to `loctrack-trips` and where that program is looked for.
@Suite("trips: the command line", .timeLimit(.minutes(1)))
struct TripsCommandTests {
    @Test("given files and a format when parsed then they are taken in order, in both spellings, - and names after -- too")
    func parsing() throws {
        #expect(try Command(arguments: ["trips", "a.gpx", "b.json"]) == .trips(TripsOptions(files: ["a.gpx", "b.json"])))
        #expect(try Command(arguments: ["trips", "--format", "csv", "a.gpx", "-", "--", "--odd.json"])
                == .trips(TripsOptions(format: .csv, files: ["a.gpx", "-", "--odd.json"])))
        #expect(try Command(arguments: ["trips", "a.gpx", "--format=text"]) == .trips(TripsOptions(format: .text, files: ["a.gpx"])))
        #expect(try Command(arguments: ["trips", "a.gpx", "-h"]) == .help(topic: .trips))
        #expect(try Command(arguments: ["help", "trips"]) == .help(topic: .trips))
    }

    @Test("given no file, a format trips does not write, an empty file name or an unknown option when parsed then it is a usage error")
    func usageErrors() {
        #expect(throws: UsageError.missingArgument(command: "trips", expected: "at least one track file")) {
            try Command(arguments: ["trips", "--format", "json"])
        }
        #expect(throws: UsageError.invalidValue("gpx", option: "--format", expected: "one of json, text, csv")) {
            try Command(arguments: ["trips", "--format", "gpx", "a.json"])
        }
        #expect(throws: UsageError.invalidArgument("", command: "trips", expected: "a file name")) {
            try Command(arguments: ["trips", ""])
        }
        #expect(throws: UsageError.unknownOption("--verbose", command: "trips")) { try Command(arguments: ["trips", "--verbose", "a"]) }
    }

    @Test("given options when handed to loctrack-trips then it reads back the files and the format decided, and refuses anything else")
    func handoff() throws {
        let options = TripsOptions(files: ["a.gpx", "--b.json", "-"])
        let arguments = options.handoffArguments(format: .text)
        #expect(arguments == ["--format", "text", "--", "a.gpx", "--b.json", "-"])
        #expect(try TripsOptions(handoff: arguments) == TripsOptions(format: .text, files: ["a.gpx", "--b.json", "-"]))
        for bad in [["a.gpx"], ["--format", "text", "--"], ["--format", "gpx", "--", "a"], ["--format", "text", "a", "b"]] {
            #expect(throws: HandoffError.self) { try TripsOptions(handoff: bad) }
        }
        // One wording for every program loctrack becomes (LocTrackProcess's HandoffError).
        #expect(throws: HandoffError(program: "loctrack-trips", command: "trips", reason: "no format gpx")) {
            try TripsOptions(handoff: ["--format", "gpx", "--", "a"])
        }
        #expect(throws: HandoffError(program: "loctrack-serve", command: "serve", reason: "expected --options and its JSON object")) {
            try ServeOptions(handoff: ["a"])
        }
        #expect("\(HandoffError(program: "loctrack-trips", command: "trips", reason: "x"))"
            == "loctrack-trips is started by `loctrack trips` (x); run `loctrack trips --help`")
    }

    @Test("given where loctrack runs from when it looks for loctrack-trips then the override alone, else beside it, then ../lib/loctrack")
    func tripsCandidates() {
        #expect(InstallLayout.tripsCandidates(override: nil, programDirectory: "/usr/bin")
                == ["/usr/bin/loctrack-trips", "/usr/lib/loctrack/loctrack-trips"])
        #expect(InstallLayout.tripsCandidates(override: nil, programDirectory: "/src/lt/.build/x86_64-unknown-linux-gnu/debug")
                == ["/src/lt/.build/x86_64-unknown-linux-gnu/debug/loctrack-trips", "/src/lt/.build/x86_64-unknown-linux-gnu/lib/loctrack/loctrack-trips"])
        #expect(InstallLayout.tripsCandidates(override: "/opt/x/trips", programDirectory: "/usr/bin") == ["/opt/x/trips"])
        #expect(InstallLayout.tripsCandidates(override: "", programDirectory: nil).isEmpty)
    }

    @Test("given the format not given when decided then text on a terminal, JSON elsewhere")
    func defaultFormat() {
        #expect(TripsFormat.default(stdoutIsTerminal: true) == .text)
        #expect(TripsFormat.default(stdoutIsTerminal: false) == .json)
    }
}
