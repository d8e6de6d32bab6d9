import LocTrack
import LocTrackCLI
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("Command line parsing", .timeLimit(.minutes(1)))
struct CommandParsingTests {
    @Test("given no arguments when parsed then it asks for a command")
    func noArguments() {
        #expect(throws: UsageError.missingCommand) { try Command(arguments: []) }
    }

    @Test("given a bare stream when parsed then every option has its default")
    func streamDefaults() throws {
        #expect(try Command(arguments: ["stream"]) == .stream(.init()))
    }

    @Test("given every stream option when parsed then each is taken, in both spellings")
    func streamAllOptions() throws {
        let expected = Command.stream(.init(
            minimumAccuracy: 20, format: .json, source: GPSDSource(host: "gps.local", port: "3000", device: "/dev/ttyUSB0")))
        #expect(try Command(arguments: ["stream", "--min-accuracy", "20", "--format", "json", "gps.local:3000:/dev/ttyUSB0"]) == expected)
        #expect(try Command(arguments: ["stream", "gps.local:3000:/dev/ttyUSB0", "--min-accuracy=20", "--format=json"]) == expected)
    }

    @Test("given the distance options when parsed then stream and monitor run keep them, and neither measures without them")
    func distanceOptions() throws {
        var expected = Command.StreamOptions()
        expected.distance = DistanceOptions(odometerOnLines: true, trips: true, odometerFile: "/var/lib/loctrack/odo")
        #expect(try Command(arguments: ["stream", "--odometer", "--trips", "--odometer-file", "/var/lib/loctrack/odo"])
            == .stream(expected))
        guard case .monitor(.run(let run)) = try Command(arguments: ["monitor", "run", "--trips"]) else {
            Issue.record("monitor run did not parse")
            return
        }
        #expect(run.distance == DistanceOptions(trips: true))
        #expect(run.distance.measuresForOutput)
        #expect(!Command.StreamOptions().distance.measuresForOutput)
        #expect(throws: UsageError.self) { try Command(arguments: ["stream", "--odometer-file"]) }
    }

    @Test("given the odometer command when parsed then it prints or sets, and refuses what it cannot take")
    func odometerCommand() throws {
        #expect(try Command(arguments: ["odometer"]) == .odometer(OdometerOptions()))
        #expect(try Command(arguments: ["odometer", "--set", "123456.7", "--odometer-file", "/var/lib/lt/odo"])
            == .odometer(OdometerOptions(setMetres: 123_456.7, file: "/var/lib/lt/odo")))
        #expect(try Command(arguments: ["odometer", "--help"]) == .help(topic: .odometer))
        #expect(throws: UsageError.self) { try Command(arguments: ["odometer", "--set", "-1"]) }
        #expect(throws: UsageError.self) { try Command(arguments: ["odometer", "12"]) }
    }

    @Test("given stream's filters and limits when parsed then each is kept exactly, metres as decimals")
    func streamFilters() throws {
        #expect(try Command(arguments: [
            "stream", "--min-distance", "2.5", "--interval=10", "--count", "3", "--duration", "1.5", "--format", "gpx",
        ]) == .stream(.init(minimumDistance: 2.5, intervalSeconds: 10, count: 3, durationSeconds: 1.5, format: .gpx)))
    }

    @Test("given every format name when parsed then it is that format", arguments: OutputFormat.allCases)
    func formats(format: OutputFormat) throws {
        #expect(try Command(arguments: ["once", "--format", format.rawValue]) == .once(.init(format: format)))
    }

    @Test("given a decimal accuracy when parsed then it is kept exactly")
    func decimalAccuracy() throws {
        #expect(try Command(arguments: ["stream", "--min-accuracy", "2.5"]) == .stream(.init(minimumAccuracy: 2.5)))
    }

    @Test("given every once option when parsed then each is taken")
    func onceAllOptions() throws {
        let parsed = try Command(arguments: [
            "once", "--timeout", "7.5", "--min-accuracy", "50", "--max-age=0", "--format", "text", "-v", "[::1]:2948",
        ])
        #expect(parsed == .once(.init(
            minimumAccuracy: 50, timeoutSeconds: 7.5, maximumAgeSeconds: 0, format: .text,
            source: GPSDSource(host: "::1", port: "2948"), verbose: true)))
    }

    @Test("given once without a timeout when parsed then the timeout is 30 s and the maximum age 2 s")
    func onceDefaults() throws {
        #expect(try Command(arguments: ["once"]) == .once(.init(timeoutSeconds: 30, maximumAgeSeconds: 2)))
    }

    @Test("given stream's connection flags when parsed then reconnecting is off and verbose on")
    func streamFlags() throws {
        #expect(try Command(arguments: ["stream", "--no-reconnect", "--verbose"]) ==
            .stream(.init(reconnect: false, verbose: true)))
        #expect(try Command(arguments: ["stream", "-v"]) == .stream(.init(verbose: true)))
    }

    @Test("given help spellings when parsed then they name the right topic",
          arguments: [
            (["--help"], HelpTopic.overview), (["-h"], .overview), (["help"], .overview),
            (["help", "stream"], .stream), (["help", "once"], .once), (["stream", "--help"], .stream),
            (["once", "-h"], .once), (["stream", "--min-accuracy", "3", "-h"], .stream),
          ])
    func helpTopics(arguments: [String], topic: HelpTopic) throws {
        #expect(try Command(arguments: arguments) == .help(topic: topic))
    }

    @Test("given --version when parsed then it is the version command")
    func version() throws {
        #expect(try Command(arguments: ["--version"]) == .version)
    }

    @Test("given -- when parsed then what follows is the source even if it starts with a dash")
    func doubleDash() throws {
        #expect(throws: UsageError.invalidSource("'-x': not a host name")) {
            try Command(arguments: ["stream", "--", "-x"])
        }
        #expect(try Command(arguments: ["stream", "--", "host"]) == .stream(.init(source: GPSDSource(host: "host"))))
    }

    @Test("given a bad command line when parsed then the error names the problem",
          arguments: [
            (["fly"], UsageError.unknownCommand("fly")),
            (["--fly"], .unknownOption("--fly", command: nil)),
            (["stream", "--fly"], .unknownOption("--fly", command: "stream")),
            (["once", "--interval", "3"], .unknownOption("--interval", command: "once")),
            (["stream", "--timeout", "3"], .unknownOption("--timeout", command: "stream")),
            (["stream", "--min-accuracy"], .missingValue(option: "--min-accuracy")),
            (["once", "--timeout"], .missingValue(option: "--timeout")),
            (["stream", "--format"], .missingValue(option: "--format")),
            (["stream", "--min-accuracy", "abc"], .invalidValue("abc", option: "--min-accuracy", expected: "a positive number of metres, or off")),
            (["stream", "--min-accuracy", "-5"], .invalidValue("-5", option: "--min-accuracy", expected: "a positive number of metres, or off")),
            (["stream", "--min-accuracy", "0"], .invalidValue("0", option: "--min-accuracy", expected: "a positive number of metres, or off")),
            (["stream", "--min-accuracy", "nan"], .invalidValue("nan", option: "--min-accuracy", expected: "a positive number of metres, or off")),
            (["once", "--timeout", "inf"], .invalidValue("inf", option: "--timeout", expected: "a positive number of seconds")),
            (["once", "--timeout="], .invalidValue("", option: "--timeout", expected: "a positive number of seconds")),
            (["stream", "--format", "xml"], .invalidValue("xml", option: "--format", expected: "one of json, text, csv, gpx, geojson, owntracks, nmea")),
            (["stream", "--count", "0"], .invalidValue("0", option: "--count", expected: "a whole number of 1 or more")),
            (["stream", "--count", "2.5"], .invalidValue("2.5", option: "--count", expected: "a whole number of 1 or more")),
            (["stream", "--min-distance", "-1"], .invalidValue("-1", option: "--min-distance", expected: "a positive number of metres")),
            (["stream", "--interval", "x"], .invalidValue("x", option: "--interval", expected: "a positive number of seconds")),
            (["stream", "--duration"], .missingValue(option: "--duration")),
            (["once", "--count", "1"], .unknownOption("--count", command: "once")),
            (["once", "--max-age", "-1"], .invalidValue("-1", option: "--max-age", expected: "a number of seconds, 0 or more")),
            (["stream", "--max-age", "1"], .unknownOption("--max-age", command: "stream")),
            (["stream", "--no-reconnect=yes"], .unexpectedValue("yes", option: "--no-reconnect")),
            (["once", "--no-reconnect"], .unknownOption("--no-reconnect", command: "once")),
            (["stream", "a", "b"], .unexpectedArgument("b", command: "stream")),
            (["once", "a:1", "b:2"], .unexpectedArgument("b:2", command: "once")),
            (["help", "fly"], .unknownCommand("fly")),
            (["help", "stream", "x"], .unexpectedArgument("x", command: "help")),
            (["stream", "host:99999"], .invalidSource("'host:99999': port must be a number from 1 to 65535")),
            (["stream", "[::1"], .invalidSource("'[::1': missing ']' after IPv6 address")),
          ])
    func errors(arguments: [String], error: UsageError) {
        #expect(throws: error) { try Command(arguments: arguments) }
    }

    @Test("given a usage error when described then it is one line that points to help")
    func oneLineErrors() {
        let description = UsageError.unknownOption("--fly", command: "stream").description
        #expect(description == "unknown option '--fly' for 'stream'; try 'loctrack help stream'")
        #expect(!description.contains("\n"))
    }
}

@Suite("Source syntax [host][:port[:device]]", .timeLimit(.minutes(1)))
struct SourceParsingTests {
    @Test("given source strings when parsed then host, port and device are gpsd's",
          arguments: [
            ("", GPSDSource.default),
            ("gps.example", GPSDSource(host: "gps.example")),
            ("gps.example:3000", GPSDSource(host: "gps.example", port: "3000")),
            (":3000", GPSDSource(port: "3000")),
            ("::/dev/ttyUSB0", GPSDSource(device: "/dev/ttyUSB0")),
            ("127.0.0.1::/dev/ttyACM0", GPSDSource(host: "127.0.0.1", device: "/dev/ttyACM0")),
            ("[::1]", GPSDSource(host: "::1")),
            ("[::1]:2948", GPSDSource(host: "::1", port: "2948")),
            ("[fe80::1%eth0]:2948:/dev/gps0", GPSDSource(host: "fe80::1%eth0", port: "2948", device: "/dev/gps0")),
            ("/dev/ttyUSB1", GPSDSource(device: "/dev/ttyUSB1")),
            ("localhost:2947:/dev/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00",
             GPSDSource(device: "/dev/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00")),
          ])
    func valid(text: String, expected: GPSDSource) throws {
        #expect(try GPSDSource(parsing: text) == expected)
    }

    @Test("given a source when described then it round-trips through parsing",
          arguments: ["localhost:2947", "[::1]:2948", "10.0.0.2:2947:/dev/ttyUSB0"])
    func roundTrip(text: String) throws {
        #expect(try GPSDSource(parsing: text).description == text)
    }

    @Test("given bad sources when parsed then they are rejected",
          arguments: ["host:abc", "host:0", "host:70000", "[::1", "[]:2947", "[::1]x", "host:2947:dev", "a b"])
    func invalid(text: String) {
        #expect(throws: LocTrackError.self) { try GPSDSource(parsing: text) }
    }
}
