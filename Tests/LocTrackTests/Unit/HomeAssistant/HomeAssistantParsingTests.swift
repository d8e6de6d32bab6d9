import LocTrack
@testable import LocTrackCLI
import LocTrackMQTT
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("--ha-discovery command line parsing", .timeLimit(.minutes(1)))
struct HomeAssistantParsingTests {
    static func publishes(_ arguments: [String]) throws -> [PublishOptions] {
        guard case .stream(let options) = try Command(arguments: ["stream"] + arguments) else {
            Issue.record("not a stream command")
            return []
        }
        return options.publishes
    }

    @Test("given --ha-discovery with every companion when parsed then they belong to their --publish")
    func companions() throws {
        let publishes = try Self.publishes([
            "--publish", "mqtt://home/loctrack/van", "--ha-discovery", "--ha-prefix", "ha", "--ha-name", "The van",
            "--ha-node", "van_1", "--ha-interval", "30", "--ha-max-error", "50",
            "--publish", "mqtt://fleet/fleet/van", "--client-id", "fleet-van",
        ])
        #expect(publishes.count == 2)
        #expect(publishes[0].homeAssistant == HomeAssistantOptions(
            prefix: "ha", name: "The van", node: "van_1", intervalSeconds: 30, maximumError: 50))
        #expect(publishes[1].homeAssistant == nil)
    }

    @Test("given --ha-discovery alone when parsed then the documented defaults apply; --ha-max-error 0 is no limit")
    func defaults() throws {
        let options = try #require(try Self.publishes(["--publish", "mqtt://h/t", "--ha-discovery"]).first?.homeAssistant)
        #expect(options == HomeAssistantOptions(prefix: "homeassistant", intervalSeconds: 10, maximumError: 100))
        let unlimited = try Self.publishes(["--publish", "mqtt://h/t", "--ha-discovery", "--ha-max-error", "0"])
        #expect(unlimited.first?.homeAssistant?.maximumError == nil)
    }

    @Test("given bad Home Assistant options when parsed then each is a usage error naming the option")
    func badInput() {
        let cases: [([String], String)] = [
            (["--ha-discovery"], "--ha-discovery needs --publish"),
            (["--publish", "mqtt://h/t", "--ha-name", "x"], "--ha-name needs --ha-discovery"),
            (["--publish", "mqtt://h/t", "--ha-discovery", "--ha-prefix", "home/assistant"], "--ha-prefix"),
            (["--publish", "mqtt://h/t", "--ha-discovery", "--ha-prefix", "ha#"], "--ha-prefix"),
            (["--publish", "mqtt://h/t", "--ha-discovery", "--ha-prefix", ""], "--ha-prefix"),
            (["--publish", "mqtt://h/t", "--ha-discovery", "--ha-node", "van.1"], "--ha-node"),
            (["--publish", "mqtt://h/t", "--ha-discovery", "--ha-name", " "], "--ha-name"),
            (["--publish", "mqtt://h/t", "--ha-discovery", "--ha-interval", "0"], "--ha-interval"),
        ]
        for (arguments, expected) in cases {
            #expect(throws: UsageError.self, "\(arguments)") { try Command(arguments: ["stream"] + arguments) }
            do {
                _ = try Command(arguments: ["stream"] + arguments)
            } catch {
                #expect("\(error)".contains(expected), "\(arguments): \(error)")
            }
        }
    }

    @Test("given a Home Assistant broker and --format gpx when parsed then gpx is allowed (it names no broker's format)")
    func formatWithHomeAssistantOnly() throws {
        #expect(throws: Never.self) {
            try Command(arguments: ["stream", "--format", "gpx", "--publish", "mqtt://h/t", "--ha-discovery", "-o", "t.gpx"])
        }
    }

    @Test("given client ids when made into node ids then what Home Assistant refuses becomes _")
    func nodeIDs() {
        #expect(HomeAssistantOptions.nodeID(clientID: "loctrack-van.local") == "loctrack-van_local")
        #expect(HomeAssistantOptions.nodeID(clientID: "Wagen Ä") == "Wagen__")
        #expect(HomeAssistantOptions.isValidNodeID("van_1-a"))
        #expect(!HomeAssistantOptions.isValidNodeID("van 1"))
    }
}
