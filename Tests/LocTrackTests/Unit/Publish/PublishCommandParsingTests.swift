import LocTrack
@testable import LocTrackCLI
import LocTrackMQTT
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("--publish command line parsing", .timeLimit(.minutes(1)))
struct PublishCommandParsingTests {
    static let url = "mqtts://alice@broker.example.org:8884/owntracks/alice/car"
    static let every = [
        "--publish", url, "--qos", "2", "--retain", "--client-id", "car-1", "--cafile", "/etc/ca.pem",
        "--password-file", "/run/secrets/mqtt", "--spool", "/var/spool/lt", "--spool-limit", "2G", "--tid", "ac",
    ]
    static let everyWithEquals = [
        "--publish=\(url)", "--qos=2", "--retain", "--client-id=car-1", "--cafile=/etc/ca.pem",
        "--password-file=/run/secrets/mqtt", "--spool=/var/spool/lt", "--spool-limit=2G", "--tid=ac",
    ]

    static func expected() throws -> PublishOptions {
        PublishOptions(
            broker: try BrokerURL(parsing: url), qos: 2, retain: true, clientID: "car-1", caFile: "/etc/ca.pem",
            passwordFile: "/run/secrets/mqtt", spoolDirectory: "/var/spool/lt", spoolLimitBytes: 2_000_000_000, tid: "ac")
    }

    @Test("given stream with every publishing option when parsed then each is taken, in both spellings")
    func streamEveryOption() throws {
        // OwnTracks to a broker: the 100 m accuracy limit for Home Assistant comes with it.
        let expected = Command.stream(.init(format: .owntracks, publishes: [try Self.expected()], trackerID: "ac",
                                            brokerAccuracyLimit: 100))
        #expect(try Command(arguments: ["stream", "--format", "owntracks"] + Self.every) == expected)
        #expect(try Command(arguments: ["stream", "--format=owntracks"] + Self.everyWithEquals) == expected)
    }

    @Test("given monitor run with every publishing option when parsed then each is taken, in both spellings")
    func monitorEveryOption() throws {
        let expected = Command.monitor(.run(.init(name: "car", publishes: [try Self.expected()], trackerID: "ac")))
        #expect(try Command(arguments: ["monitor", "run", "--name", "car"] + Self.every) == expected)
        #expect(try Command(arguments: ["monitor", "run", "--name", "car"] + Self.everyWithEquals) == expected)
    }

    @Test("given only --publish when parsed then the defaults are those of PublishOptions")
    func onlyPublish() throws {
        let broker = try BrokerURL(parsing: "mqtt://h/t")
        #expect(try Command(arguments: ["stream", "--publish", "mqtt://h/t"]) == .stream(.init(publishes: [.init(broker: broker)])))
        #expect(try Command(arguments: ["monitor", "run", "--publish", "mqtt://h/t"])
            == .monitor(.run(.init(publishes: [.init(broker: broker)]))))
        #expect(try Command(arguments: ["stream"]) == .stream(.init(publishes: [])))
    }

    @Test("given each line format when published then it is accepted",
          arguments: [OutputFormat.json, .geojson, .owntracks, .text])
    func lineFormats(format: OutputFormat) throws {
        let parsed = try Command(arguments: ["stream", "--format", format.rawValue, "--publish", "mqtt://h/t"])
        #expect(parsed == .stream(.init(format: format, publishes: [.init(broker: try BrokerURL(parsing: "mqtt://h/t"))],
                                        brokerAccuracyLimit: format == .owntracks ? 100 : nil)))
    }

    @Test("given csv or gpx with --publish when parsed then it asks for a line format", arguments: ["csv", "gpx"])
    func documentFormats(format: String) {
        #expect(throws: UsageError.publishNeedsLineFormat) {
            try Command(arguments: ["stream", "--publish", "mqtt://h/t", "--format", format])
        }
        #expect(UsageError.publishNeedsLineFormat.description ==
            "--publish sends one message per line: use --format json, geojson, owntracks or text")
    }

    @Test("given a companion without --publish when parsed then it names the first companion",
          arguments: [
              (["--qos", "1"], "--qos"), (["--retain"], "--retain"), (["--client-id", "c"], "--client-id"),
              (["--cafile", "ca.pem"], "--cafile"), (["--password-file", "p"], "--password-file"),
              (["--spool", "d"], "--spool"), (["--spool-limit", "1M"], "--spool-limit"),
              (["--tid", "ab", "--spool", "d", "--qos", "0"], "--spool"),
          ])
    func companionWithoutPublish(arguments: [String], option: String) {
        #expect(throws: UsageError.needs(option, what: "--publish")) { try Command(arguments: ["stream"] + arguments) }
        #expect(throws: UsageError.needs(option, what: "--publish")) {
            try Command(arguments: ["monitor", "run"] + arguments)
        }
        #expect(UsageError.needs("--qos", what: "--publish").description == "--qos needs --publish")
    }

    @Test("given --tid without --publish when parsed then stream and monitor run need --format owntracks")
    func trackerIDAlone() throws {
        #expect(try Command(arguments: ["stream", "--format", "owntracks", "--tid", "pi"])
            == .stream(.init(format: .owntracks, trackerID: "pi")))
        #expect(throws: UsageError.needs("--tid", what: "--publish or --format owntracks")) {
            try Command(arguments: ["stream", "--tid", "pi"])
        }
        #expect(UsageError.needs("--tid", what: "--publish or --format owntracks").description
            == "--tid needs --publish or --format owntracks")
        #expect(try Command(arguments: ["monitor", "run", "--format", "owntracks", "--tid", "pi"])
            == .monitor(.run(.init(format: .owntracks, trackerID: "pi"))))
        #expect(throws: UsageError.needs("--tid", what: "--publish or --format owntracks")) {
            try Command(arguments: ["monitor", "run", "--format", "json", "--tid", "pi"])
        }
        #expect(try Command(arguments: ["once", "--format", "owntracks", "--tid", "pi"])
            == .once(.init(format: .owntracks, trackerID: "pi")))
        #expect(throws: UsageError.needs("--tid", what: "--format owntracks")) {
            try Command(arguments: ["once", "--tid", "pi"])
        }
    }

    @Test("given --cafile with an mqtt:// URL when parsed then it asks for mqtts://")
    func cafileWithoutTLS() {
        let error = UsageError.needs("--cafile", what: "an mqtts:// URL in --publish (it is the CA for TLS)")
        #expect(throws: error) { try Command(arguments: ["stream", "--publish", "mqtt://h/t", "--cafile", "ca.pem"]) }
        #expect(throws: error) {
            try Command(arguments: ["monitor", "run", "--cafile", "ca.pem", "--publish", "mqtt://h/t"])
        }
        #expect(error.description == "--cafile needs an mqtts:// URL in --publish (it is the CA for TLS)")
    }

    @Test("given invalid values when parsed then each is a usage error saying what is expected",
          arguments: [
              (["--qos", "3"], UsageError.invalidValue("3", option: "--qos", expected: "0, 1 or 2")),
              (["--qos", "one"], .invalidValue("one", option: "--qos", expected: "0, 1 or 2")),
              (["--qos=-1"], .invalidValue("-1", option: "--qos", expected: "0, 1 or 2")),
              (["--client-id", "a/b"],
               .invalidValue("a/b", option: "--client-id", expected: "1 to 65535 bytes without '/', not '.' or '..'")),
              (["--client-id="],
               .invalidValue("", option: "--client-id", expected: "1 to 65535 bytes without '/', not '.' or '..'")),
              (["--cafile="], .invalidValue("", option: "--cafile", expected: "a file name")),
              (["--password-file="], .invalidValue("", option: "--password-file", expected: "a file name")),
              (["--spool="], .invalidValue("", option: "--spool", expected: "a directory")),
              (["--spool-limit", "1.5G"],
               .invalidValue("1.5G", option: "--spool-limit", expected: "a size of 1 byte or more, e.g. 500000, 500K, 100M, 2G")),
              (["--spool-limit", "0"],
               .invalidValue("0", option: "--spool-limit", expected: "a size of 1 byte or more, e.g. 500000, 500K, 100M, 2G")),
              (["--tid", "abc"], .invalidValue("abc", option: "--tid", expected: "one or two letters or digits")),
              (["--retain=yes"], .unexpectedValue("yes", option: "--retain")),
              (["--qos"], .missingValue(option: "--qos")),
          ])
    func invalidValues(arguments: [String], error: UsageError) {
        #expect(throws: error) { try Command(arguments: ["stream", "--publish", "mqtt://h/t"] + arguments) }
        #expect(throws: error) { try Command(arguments: ["monitor", "run", "--publish", "mqtt://h/t"] + arguments) }
    }

    @Test("given a broken or secret-bearing URL when parsed then the error is one line without the password")
    func badURL() {
        let refused = UsageError.invalidBrokerURL(reason: PublishConfigurationError.passwordInURL.description)
        #expect(throws: refused) { try Command(arguments: ["stream", "--publish", "mqtt://alice:hunter2@h/t"]) }
        #expect(throws: refused) { try Command(arguments: ["monitor", "run", "--publish=mqtt://alice:hunter2@h/t"]) }
        #expect(!refused.description.contains("hunter2"))
        #expect(refused.description == "--publish: the broker URL must not contain a password (it would show in ps): "
            + "use LOCTRACK_MQTT_PASSWORD or --password-file")
        #expect(throws: UsageError.invalidBrokerURL(
            reason: "the URL must start with mqtt:// or mqtts:// (a broker), http:// or https:// (a Traccar server), "
                + "or udp:// (NMEA to a chart plotter)")) {
            try Command(arguments: ["stream", "--publish", "tcp://h/t"])
        }
        #expect(throws: UsageError.missingValue(option: "--publish")) { try Command(arguments: ["stream", "--publish"]) }
    }

    @Test("given an option no command knows when parsed then it is still unknown for that command")
    func unknownStaysUnknown() {
        #expect(throws: UsageError.unknownOption("--qso", command: "stream")) {
            try Command(arguments: ["stream", "--publish", "mqtt://h/t", "--qso", "1"])
        }
        #expect(throws: UsageError.unknownOption("--publish", command: "once")) {
            try Command(arguments: ["once", "--publish", "mqtt://h/t"])
        }
        #expect(throws: UsageError.unknownOption("--publish", command: "monitor list")) {
            try Command(arguments: ["monitor", "list", "--publish", "mqtt://h/t"])
        }
    }

    @Test("given two --publish when parsed then each broker keeps the companions that follow it")
    func twoBrokers() throws {
        let parsed = try Command(arguments: [
            "stream", "--qos", "0", "--publish", "mqtt://home/t", "--retain", "--qos", "2",
            "--publish", "mqtts://fleet:8883/v", "--client-id", "van-7", "--spool-limit", "5M", "--tid", "vn",
        ])
        #expect(parsed == .stream(.init(publishes: [
            .init(broker: try BrokerURL(parsing: "mqtt://home/t"), qos: 2, retain: true, tid: "vn"),
            .init(broker: try BrokerURL(parsing: "mqtts://fleet:8883/v"), clientID: "van-7", spoolLimitBytes: 5_000_000, tid: "vn"),
        ], trackerID: "vn")))
    }

    @Test("given one --publish when a companion is repeated then the last one counts")
    func lastWins() throws {
        let parsed = try Command(arguments: ["stream", "--qos", "0", "--publish", "mqtt://b/u", "--qos", "2"])
        #expect(parsed == .stream(.init(publishes: [.init(broker: try BrokerURL(parsing: "mqtt://b/u"), qos: 2)])))
    }

    @Test("given two --publish to one broker with one client id when parsed then it is a usage error")
    func sharedSession() throws {
        #expect(throws: UsageError.sharedBrokerSession(broker: "h:1883", clientID: "c")) {
            try Command(arguments: ["stream", "--publish", "mqtt://h/a", "--client-id", "c", "--publish", "mqtt://h/b", "--client-id", "c"])
        }
        let distinct = try Command(arguments: [
            "monitor", "run", "--publish", "mqtt://h/a", "--client-id", "c", "--publish", "mqtt://h/b", "--client-id", "d",
        ])
        guard case .monitor(.run(let options)) = distinct else {
            Issue.record("not monitor run: \(distinct)")
            return
        }
        #expect(options.publishes.map(\.clientID) == ["c", "d"])
    }

    @Test("given two --publish with one --spool when parsed then it is a usage error, and so is one default spool")
    func sharedSpool() throws {
        #expect(throws: UsageError.sharedSpool("/s")) {
            try Command(arguments: ["stream", "--publish", "mqtt://a/t", "--spool", "/s", "--publish", "mqtt://b/t", "--spool", "/s"])
        }
        // Two brokers with the default client id share the default spool folder: found when the sinks start.
        let parsed = try Command(arguments: ["stream", "--publish", "mqtt://a/t", "--publish", "mqtt://b/t"])
        guard case .stream(let options) = parsed else {
            Issue.record("not stream: \(parsed)")
            return
        }
        let clash = SinkPipeline.sharedSpool(options.sinks, environment: ["HOME": "/home/u"])
        #expect(clash == "/home/u/.local/state/loctrack/spool/\(options.publishes[0].clientID)")
        #expect(UsageError.sharedSpool(clash ?? "").description.contains("give each its own --spool or --client-id"))
    }
}
