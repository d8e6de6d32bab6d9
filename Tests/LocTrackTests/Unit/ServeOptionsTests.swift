import LocTrackServeOptions
import LocTrackSystem
import LocTrack
@testable import LocTrackCLI
import Testing
@testable import LocTrackFormats
import LocTrackProcess
@testable import LocTrackSinks

/// `loctrack serve`'s command line (docs/serve.md): parsed the same for `loctrack serve` and
/// `loctrack-serve`, purely.
@Suite("serve's command line", .timeLimit(.minutes(1)))
struct ServeOptionsTests {
    @Test("given a bare serve when parsed then it listens on 127.0.0.1:8947 with every default")
    func defaults() throws {
        let options = try ServeOptions(arguments: [])
        #expect(options == ServeOptions())
        #expect(options.listen == .default)
        #expect(options.listen.description == "127.0.0.1:8947")
        #expect(options.staleSeconds == 3 && options.maximumStreams == 64 && options.dwellSeconds == 0)
        #expect(options.tokenFile == nil && options.monitor == nil && options.track == nil && options.tiles == nil)
        #expect(try Command(arguments: ["serve"]) == .serve(ServeOptions()))
    }

    @Test("given every option when parsed then each is taken, in both spellings")
    func everyOption() throws {
        let expected = ServeOptions(
            listen: try ListenAddress(parsing: "0.0.0.0:80"), tokenFile: "/etc/loctrack/serve.token", monitor: "home",
            dwellSeconds: 30, track: try TrackPathPattern("tracks/%F.json"),
            tiles: try TileSource(template: "https://tile.example.org/{z}/{x}/{y}.png", attribution: "© OSM"),
            staleSeconds: 2.5, maximumStreams: 10, verbose: true,
            source: GPSDSource(host: "gps.local", port: "3000"))
        #expect(try ServeOptions(arguments: [
            "--listen", "0.0.0.0:80", "--token-file", "/etc/loctrack/serve.token", "--monitor", "home", "--dwell", "30",
            "--track", "tracks/%F.json", "--tiles", "https://tile.example.org/{z}/{x}/{y}.png", "--tiles-attribution", "© OSM",
            "--stale", "2.5", "--max-streams", "10", "-v", "gps.local:3000",
        ]) == expected)
        #expect(try ServeOptions(arguments: [
            "gps.local:3000", "--listen=0.0.0.0:80", "--token-file=/etc/loctrack/serve.token", "--monitor=home", "--dwell=30",
            "--track=tracks/%F.json", "--tiles-attribution=© OSM", "--tiles=https://tile.example.org/{z}/{x}/{y}.png",
            "--stale=2.5", "--max-streams=10", "--verbose",
        ]) == expected)
    }

    @Test("given a --listen in each accepted form when parsed then host, port and loopback are right",
          arguments: [
            ("127.0.0.1:8080", "127.0.0.1", 8080, true), ("127.5.6.7:1", "127.5.6.7", 1, true),
            ("9000", "127.0.0.1", 9000, true), ("localhost:65535", "localhost", 65535, true),
            ("[::1]:8947", "::1", 8947, true), ("[0:0:0:0:0:0:0:1]:8947", "0:0:0:0:0:0:0:1", 8947, true),
            ("[::ffff:127.0.0.1]:8947", "::ffff:127.0.0.1", 8947, true),
            ("0.0.0.0:8947", "0.0.0.0", 8947, false), ("192.168.1.5:80", "192.168.1.5", 80, false),
            ("[::]:8947", "::", 8947, false), ("[fe80::1:2]:8947", "fe80::1:2", 8947, false),
            ("[2001:db8::192.0.2.1]:443", "2001:db8::192.0.2.1", 443, false), ("[::2]:1", "::2", 1, false),
            ("[::ffff:10.0.0.1]:80", "::ffff:10.0.0.1", 80, false), ("128.0.0.1:80", "128.0.0.1", 80, false),
          ])
    func listenForms(text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.isLoopback == loopback)
    }

    @Test("given a malformed --listen when parsed then it is one usage line naming it",
          arguments: [
            "", ":8947", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:+80", "127.0.0.1:80x",
            "127.0.0.1:123456", "1.2.3:80", "1.2.3.4.5:80", "256.0.0.1:80", "01.2.3.4:80", "1.2.3.-4:80", "example.org:80",
            "LOCALHOST:80", "::1:8947", "[::1]", "[::1]8947", "[::1:8947", "[1::2::3]:80", "[12345::]:80", "[::g]:80",
            "[1:2:3:4:5:6:7:8:9]:80", "[1:2:3:4:5:6:7]:80", "[::1%lo]:80", "[1.2.3.4]:80", "[::1.2.3]:80", "0", "99999",
            "http://127.0.0.1:80", "127.0.0.1 :80",
          ])
    func malformedListen(text: String) throws {
        let error = try #require(throws: UsageError.self) { try ServeOptions(arguments: ["--listen", text]) }
        guard case .invalidValue(text, option: "--listen", _) = error else {
            Issue.record("\(text): \(error)")
            return
        }
        #expect(!error.description.contains("\n"))
    }

    @Test("given an address others reach without --token-file when parsed then it is a usage error saying why")
    func listenNeedsToken() throws {
        for address in ["0.0.0.0:8947", "[::]:80", "192.168.1.5:8947"] {
            #expect(throws: UsageError.listenNeedsToken(try ListenAddress(parsing: address).description)) {
                try ServeOptions(arguments: ["--listen", address])
            }
            _ = try ServeOptions(arguments: ["--listen", address, "--token-file", "t"])
        }
        #expect(UsageError.listenNeedsToken("[::]:80").description
            == "--listen [::]:80 is not a loopback address, so other computers can connect: give --token-file FILE too")
        // Loopback needs none, but may have one.
        _ = try ServeOptions(arguments: ["--listen", "[::1]:80"])
        _ = try ServeOptions(arguments: ["--token-file", "t"])
    }

    @Test("given --tiles in the forms Leaflet takes when parsed then the CSP origin is the tile server's",
          arguments: [
            ("https://tile.openstreetmap.org/{z}/{x}/{y}.png", "https://tile.openstreetmap.org"),
            ("http://192.168.1.2:8080/tiles/{z}/{x}/{y}.png", "http://192.168.1.2:8080"),
            ("https://{s}.tile.example.org/{z}/{x}/{y}{r}.png?key=abc", "https://*.tile.example.org"),
            ("http://[fd00::2]:81/{z}/{y}/{x}", "http://[fd00::2]:81"),
            ("https://tiles.local?z={z}&x={x}&y={y}", "https://tiles.local"),
          ])
    func tiles(template: String, origin: String) throws {
        let options = try ServeOptions(arguments: ["--tiles", template])
        #expect(options.tiles?.template == template)
        #expect(options.tiles?.origin == origin)
        #expect(options.tiles?.attribution == "")
    }

    @Test("given an unusable --tiles when parsed then it is an invalid value of --tiles",
          arguments: [
            "tile.example.org/{z}/{x}/{y}.png", "ftp://tile.example.org/{z}/{x}/{y}.png", "https://tile.example.org/{z}/{x}.png",
            "https:///{z}/{x}/{y}.png", "https://user:pw@tile.example.org/{z}/{x}/{y}", "https://a b/{z}/{x}/{y}",
            "https://tile.example.org/{z}/{x}/{y}.png\"; script-src *", "https://tile-{s}.example.org/{z}/{x}/{y}",
            "https://tile.example.org:0/{z}/{x}/{y}", "https://tile.example.org:/{z}/{x}/{y}", "https://tile..org/{z}/{x}/{y}",
            "https://tile.example.org;/{z}/{x}/{y}", "https://tile.example.org/{z}/{x}/{y}\u{0A}", "HTTPS://x.org/{z}/{x}/{y}",
          ])
    func badTiles(template: String) throws {
        let error = try #require(throws: UsageError.self) { try ServeOptions(arguments: ["--tiles", template]) }
        guard case .invalidValue(template, option: "--tiles", _) = error else {
            Issue.record("\(template): \(error)")
            return
        }
    }

    @Test("given --tiles-attribution without --tiles, or with a control character, when parsed then it is refused")
    func attribution() throws {
        #expect(throws: UsageError.needs("--tiles-attribution", what: "--tiles")) {
            try ServeOptions(arguments: ["--tiles-attribution", "© OSM"])
        }
        let error = try #require(throws: UsageError.self) {
            try ServeOptions(arguments: ["--tiles", "https://t.org/{z}/{x}/{y}", "--tiles-attribution", "a\u{0A}b"])
        }
        guard case .invalidValue("a\u{0A}b", option: "--tiles-attribution", _) = error else {
            Issue.record("\(error)")
            return
        }
    }

    @Test("given --tiles-file several times, with --tiles, when parsed then they are kept in order and handed over whole")
    func tileFiles() throws {
        let options = try ServeOptions(arguments: [
            "--tiles-file", "charts/base.mbtiles", "--tiles", "https://t.org/{z}/{x}/{y}.png",
            "--tiles-file=/var/lib/loctrack/charts/seamarks.mbtiles", "--tiles-file", "--odd name.mbtiles",
        ])
        #expect(options.tileFiles == ["charts/base.mbtiles", "/var/lib/loctrack/charts/seamarks.mbtiles", "--odd name.mbtiles"])
        #expect(options.tiles?.template == "https://t.org/{z}/{x}/{y}.png")
        #expect(try ServeOptions(handoff: options.handoffArguments) == options)
        #expect(try ServeOptions(handoff: ServeOptions().handoffArguments).tileFiles == [])
    }

    @Test("given --tiles-file without a file, or more than 16, when parsed then it is refused")
    func tileFilesRefused() throws {
        #expect(throws: UsageError.self) { try ServeOptions(arguments: ["--tiles-file"]) }
        #expect(throws: UsageError.self) { try ServeOptions(arguments: ["--tiles-file", ""]) }
        let seventeen = (1...17).flatMap { ["--tiles-file", "c\($0).mbtiles"] }
        let error = try #require(throws: UsageError.self) { try ServeOptions(arguments: seventeen) }
        guard case .invalidValue("c17.mbtiles", option: "--tiles-file", expected: "at most 16 chart files") = error else {
            Issue.record("\(error)")
            return
        }
    }

    @Test("given a bad number, name or pattern when parsed then it is an invalid value of that option",
          arguments: [
            ("--stale", "0"), ("--stale", "-1"), ("--stale", "soon"), ("--max-streams", "0"), ("--max-streams", "1.5"),
            ("--dwell", "-1"), ("--monitor", ".hidden"), ("--monitor", "a/b"), ("--monitor", ""), ("--track", "tracks/"),
            ("--track", "%Q.json"), ("--token-file", ""),
          ])
    func badValues(option: String, value: String) throws {
        let error = try #require(throws: UsageError.self) {
            try ServeOptions(arguments: [option, value])
        }
        guard case .invalidValue(value, option: option, _) = error else {
            Issue.record("\(option) \(value): \(error)")
            return
        }
    }

    @Test("given --dwell without --monitor when parsed then it needs --monitor")
    func dwellNeedsMonitor() throws {
        #expect(throws: UsageError.needs("--dwell", what: "--monitor")) { try ServeOptions(arguments: ["--dwell", "5"]) }
        #expect(try ServeOptions(arguments: ["--dwell", "5", "--monitor", "home"]).dwellSeconds == 5)
    }

    @Test("given --help anywhere when parsed then it is serve's help, even after a value that would be refused later")
    func help() throws {
        #expect(try Command(arguments: ["serve", "--help"]) == .help(topic: .serve))
        #expect(try Command(arguments: ["serve", "--listen", "0.0.0.0:80", "-h"]) == .help(topic: .serve))
        #expect(try Command(arguments: ["help", "serve"]) == .help(topic: .serve))
        #expect(try ServeOptions(arguments: ["--help"]).helpRequested)
        #expect(!(try ServeOptions(arguments: []).helpRequested))
        #expect(ServeOptions.helpText == HelpText.text(for: .serve))
    }

    @Test("given an unknown option, a second SOURCE or a bad SOURCE when parsed then it is a usage error")
    func wrongWords() throws {
        #expect(throws: UsageError.unknownOption("--format", command: "serve")) { try ServeOptions(arguments: ["--format", "json"]) }
        #expect(throws: UsageError.unexpectedArgument("b", command: "serve")) { try ServeOptions(arguments: ["a", "b"]) }
        #expect(throws: UsageError.self) { try ServeOptions(arguments: ["host:port:dev:extra"]) }
        #expect(throws: UsageError.missingValue(option: "--listen")) { try ServeOptions(arguments: ["--listen"]) }
        #expect(throws: UsageError.unexpectedValue("x", option: "--verbose")) { try ServeOptions(arguments: ["--verbose=x"]) }
    }

    @Test("given loctrack's own folder when the server is looked for then it is beside it, in ../lib/loctrack, and in Serve/'s build")
    func serverCandidates() {
        #expect(InstallLayout.serverCandidates(override: nil, programDirectory: "/usr/bin") == [
            "/usr/bin/loctrack-serve", "/usr/lib/loctrack/loctrack-serve",
        ])
        #expect(InstallLayout.serverCandidates(override: nil, programDirectory: "/src/lt/.build/x86_64-unknown-linux-gnu/debug") == [
            "/src/lt/.build/x86_64-unknown-linux-gnu/debug/loctrack-serve",
            "/src/lt/.build/x86_64-unknown-linux-gnu/lib/loctrack/loctrack-serve",
            "/src/lt/Serve/.build/x86_64-unknown-linux-gnu/debug/loctrack-serve",
        ])
        #expect(InstallLayout.serverCandidates(override: "/opt/x/serve", programDirectory: "/usr/bin") == ["/opt/x/serve"])
        #expect(InstallLayout.serverCandidates(override: "", programDirectory: nil).isEmpty)
    }

    @Test("given paths with . and .. when joined then they are taken away by the text")
    func joining() {
        #expect(InstallLayout.join("/usr/bin", "../lib/loctrack/x") == "/usr/lib/loctrack/x")
        #expect(InstallLayout.join("/", "../../a/./b") == "/a/b")
        #expect(InstallLayout.directory(of: "/usr/bin/loctrack") == "/usr/bin")
        #expect(InstallLayout.directory(of: "/loctrack") == "/")
    }
}
