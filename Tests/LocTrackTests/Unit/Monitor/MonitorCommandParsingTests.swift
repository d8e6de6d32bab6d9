import LocTrack
import LocTrackMonitor
import LocTrackCLI
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("monitor command line parsing", .timeLimit(.minutes(1)))
struct MonitorCommandParsingTests {
    @Test("given add with a circle and every option when parsed then each is taken")
    func addCircle() throws {
        let parsed = try Command(arguments: [
            "monitor", "add", "home", "--circle", "52.5,13.4,80", "--name", "car", "--assume", "inside",
        ])
        #expect(parsed == .monitor(.add(.init(
            identifier: "home", region: .circle(latitude: 52.5, longitude: 13.4, radius: 80), name: "car",
            assumedState: .satisfied))))
    }

    @Test("given add with a GeoJSON file and no id when parsed then the ids come from the file later")
    func addGeoJSON() throws {
        #expect(try Command(arguments: ["monitor", "add", "--geojson", "zones.geojson"])
            == .monitor(.add(.init(identifier: nil, region: .geoJSON(path: "zones.geojson")))))
    }

    @Test("given a circle out of range or malformed when parsed then it is a usage error naming the value",
          arguments: [
              ("91,13,10", "a latitude from -90 to 90"), ("-90.5,13,10", "a latitude from -90 to 90"),
              ("52,180.1,10", "a longitude from -180 to 180"), ("52,13,0", "a radius of more than 0 metres"),
              ("52,13,-5", "a radius of more than 0 metres"), ("52,13", "LAT,LON,RADIUS (degrees, degrees, metres)"),
              ("52,x,10", "LAT,LON,RADIUS (degrees, degrees, metres)"), ("nan,13,10", "a latitude from -90 to 90"),
              ("52,13,inf", "a radius of more than 0 metres"),
          ])
    func badCircle(text: String, expected: String) {
        #expect(throws: UsageError.invalidValue(text, option: "--circle", expected: expected)) {
            try Command(arguments: ["monitor", "add", "x", "--circle", text])
        }
    }

    @Test("given add without a region, or a circle without an id, when parsed then it says what is missing")
    func addMissingParts() {
        #expect(throws: UsageError.missingRegion) { try Command(arguments: ["monitor", "add", "home"]) }
        #expect(throws: UsageError.missingIdentifier(command: "monitor add")) {
            try Command(arguments: ["monitor", "add", "--circle", "1,2,3"])
        }
        #expect(throws: UsageError.conflictingOptions("--circle", "--geojson")) {
            try Command(arguments: ["monitor", "add", "a", "--circle", "1,2,3", "--geojson", "f"])
        }
        #expect(throws: UsageError.invalidValue("maybe", option: "--assume", expected: "inside or outside")) {
            try Command(arguments: ["monitor", "add", "a", "--circle", "1,2,3", "--assume", "maybe"])
        }
    }

    @Test("given remove and list when parsed then the id, name and format are taken")
    func removeAndList() throws {
        #expect(try Command(arguments: ["monitor", "remove", "home", "--name=car"])
            == .monitor(.remove(identifier: "home", name: "car")))
        #expect(throws: UsageError.missingIdentifier(command: "monitor remove")) {
            try Command(arguments: ["monitor", "remove"])
        }
        #expect(try Command(arguments: ["monitor", "list"]) == .monitor(.list(name: "default", format: .text)))
        #expect(try Command(arguments: ["monitor", "list", "--format", "json", "--name", "x"])
            == .monitor(.list(name: "x", format: .json)))
    }

    @Test("given run with every option when parsed then each is taken")
    func run() throws {
        let parsed = try Command(arguments: [
            "monitor", "run", "--name", "boat", "--format", "owntracks", "--dwell", "30", "--no-reconnect", "-v",
            "gps.local:3000",
        ])
        #expect(parsed == .monitor(.run(.init(
            name: "boat", format: .owntracks, dwellSeconds: 30, source: GPSDSource(host: "gps.local", port: "3000"),
            reconnect: false, verbose: true))))
        #expect(throws: UsageError.invalidValue("gpx", option: "--format", expected: "json, text or owntracks")) {
            try Command(arguments: ["monitor", "run", "--format", "gpx"])
        }
    }

    @Test("given monitor without or with an unknown subcommand when parsed then it lists the subcommands")
    func subcommands() {
        #expect(throws: UsageError.missingSubcommand(command: "monitor")) { try Command(arguments: ["monitor"]) }
        #expect(throws: UsageError.unknownSubcommand("watch", command: "monitor")) {
            try Command(arguments: ["monitor", "watch"])
        }
        #expect((try? Command(arguments: ["help", "monitor"])) == .help(topic: .monitor))
        #expect((try? Command(arguments: ["monitor", "run", "--help"])) == .help(topic: .monitor))
    }
}
