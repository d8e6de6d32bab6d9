import LocTrack
@testable import LocTrackCLI
import LocTrackDistance
import LocTrackMQTT
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// The rules of what goes to Home Assistant and when, with a clock the test moves.
@Suite("Home Assistant updates", .timeLimit(.minutes(1)))
struct HomeAssistantUpdatesTests {
    static let device = HomeAssistantDevice(
        options: HomeAssistantOptions(name: "Van"), clientID: "loctrack-van.local", base: "loctrack/van", hostName: "pi")

    static func updates(interval: Double = 10, maximumError: Double? = 100, regions: Bool = false) -> HomeAssistantUpdates {
        HomeAssistantUpdates(device: device, intervalSeconds: interval, maximumError: maximumError, withRegions: regions)
    }

    /// A fix `metresNorth` north of 52°N 13°E at second `second`.
    static func fix(_ second: Int64, north metresNorth: Double = 0, error: Double? = 5, status: Fix.Status = .gps) -> Fix {
        Fix(time: Timestamp(seconds: 1_800_000_000 + second), mode: .threeD, status: status,
            latitude: 52 + metresNorth / 111_195, longitude: 13, altitudeMSL: 40, horizontalError: error,
            speed: 3, track: 90)
    }

    static func topics(_ messages: [HomeAssistantMessage]) -> [String] { messages.map(\.topic) }

    @Test("given a device when announced then the tracker, ten sensors and two connectivity sensors are configured")
    func announcement() throws {
        var updates = Self.updates()
        let messages = updates.announce(now: 0, spooled: 0)
        #expect(Self.topics(messages) == [
            "homeassistant/device_tracker/loctrack-van_local/location/config",
        ] + HomeAssistantDevice.sensors.map { "homeassistant/sensor/loctrack-van_local/\($0.key)/config" } + [
            "homeassistant/binary_sensor/loctrack-van_local/gpsd/config",
            "homeassistant/binary_sensor/loctrack-van_local/receiver/config",
        ])
        let tracker = try JSONValue(parsing: messages[0].payload)
        #expect(tracker["json_attributes_topic"]?.stringValue == "loctrack/van/location")
        #expect(tracker["unique_id"]?.stringValue == "loctrack-van_local_location")
        #expect(tracker["availability_topic"]?.stringValue == "loctrack/van/availability")
        #expect(tracker["device"]?["identifiers"] == .array([.string("loctrack_loctrack-van_local")]))
        #expect(tracker["device"]?["name"]?.stringValue == "Van")
        let hdop = try JSONValue(parsing: messages[5].payload)
        #expect(hdop["value_template"]?.stringValue == "{{ value_json.hdop }}")
        #expect(hdop["state_topic"]?.stringValue == "loctrack/van/state")
    }

    @Test("given a first fix when taken then the tracker gets its position and eph, the sensors their values")
    func firstFix() throws {
        var updates = Self.updates()
        let messages = updates.take(.fix(Self.fix(0, error: 12.34)), now: 0, spooled: 2)
        #expect(Self.topics(messages) == ["loctrack/van/receiver", "loctrack/van/location", "loctrack/van/state"])
        let location = try JSONValue(parsing: messages[1].payload)
        #expect(location["latitude"]?.doubleValue == 52)
        #expect(location["longitude"]?.doubleValue == 13)
        #expect(location["gps_accuracy"]?.doubleValue == 12.34)
        #expect(location["course"]?.doubleValue == 90)
        #expect(location["source_type"]?.stringValue == "gps")
        let state = try JSONValue(parsing: messages[2].payload)
        #expect(state["mode"]?.stringValue == "3D")
        #expect(state["status"]?.stringValue == "GPS")
        #expect(state["horizontal_error"]?.doubleValue == 12.34)
        #expect(state["spool"]?.doubleValue == 2)
        #expect(state["hdop"] == .null)
        #expect(state["satellites_used"] == .null)
    }

    @Test("given a moving receiver at 1 Hz when fixes arrive then the tracker moves once per interval, latest first")
    func interval() throws {
        var updates = Self.updates(interval: 10)
        var locations: [Double] = []
        for second in Int64(0)..<35 {
            for message in updates.take(.fix(Self.fix(second, north: Double(second) * 20)), now: second * 1000, spooled: 0)
            where message.topic == "loctrack/van/location" {
                locations.append(try #require(try JSONValue(parsing: message.payload)["latitude"]?.doubleValue))
            }
        }
        #expect(locations.count == 4)  // at 0, 10, 20 and 30 s
        #expect(locations[3] == 52 + 600.0 / 111_195)
    }

    @Test("given a parked receiver whose fixes wander within eph when fixes arrive then the tracker stays put for 5 minutes")
    func parked() throws {
        var updates = Self.updates(interval: 10)
        var sent = 0
        for second in Int64(0)..<600 {
            let wander = second % 2 == 0 ? 0.0 : 3.0
            sent += updates.take(.fix(Self.fix(second, north: wander, error: 5)), now: second * 1000, spooled: 0)
                .filter { $0.topic == "loctrack/van/location" }.count
        }
        #expect(sent == 2)  // the first, then once after 300 s
    }

    @Test("given a fix with eph above the limit when taken then the tracker does not move but the sensors show the error")
    func accuracyLimit() throws {
        var updates = Self.updates(maximumError: 100)
        let messages = updates.take(.fix(Self.fix(0, error: 1_899.8)), now: 0, spooled: 0)
        #expect(!Self.topics(messages).contains("loctrack/van/location"))
        #expect(try JSONValue(parsing: try #require(messages.last).payload)["horizontal_error"]?.doubleValue == 1_899.8)
        var unlimited = Self.updates(maximumError: nil)
        #expect(Self.topics(unlimited.take(.fix(Self.fix(0, error: 1_899.8)), now: 0, spooled: 0)).contains("loctrack/van/location"))
    }

    @Test("given the status changes to RTK fixed within the interval when the fix arrives then the sensors update at once")
    func statusChangeAtOnce() throws {
        var updates = Self.updates(interval: 10)
        _ = updates.take(.fix(Self.fix(0)), now: 0, spooled: 0)
        let same = updates.take(.fix(Self.fix(1, north: 1)), now: 1000, spooled: 0)
        #expect(!Self.topics(same).contains("loctrack/van/state"))
        let rtk = updates.take(.fix(Self.fix(2, north: 1, status: .rtkFixed)), now: 2000, spooled: 0)
        let state = try #require(rtk.first { $0.topic == "loctrack/van/state" })
        #expect(try JSONValue(parsing: state.payload)["status"]?.stringValue == "RTK fixed")
    }

    @Test("given a position held back by the interval when the clock passes it then the tick sends it")
    func tickSendsHeldBack() throws {
        var updates = Self.updates(interval: 10)
        _ = updates.take(.fix(Self.fix(0)), now: 0, spooled: 0)
        #expect(updates.take(.fix(Self.fix(1, north: 100)), now: 1000, spooled: 0).allSatisfy { $0.topic != "loctrack/van/location" })
        #expect(updates.tick(now: 9_999, spooled: 0).isEmpty)
        // The sensors' values did not change (same speed, altitude and eph): only the position goes.
        #expect(Self.topics(updates.tick(now: 10_000, spooled: 0)) == ["loctrack/van/location"])
        #expect(updates.tick(now: 20_000, spooled: 0).isEmpty)
    }

    @Test("given SKY reports when taken then satellites and DOPs reach the sensors")
    func sky() throws {
        var updates = Self.updates()
        let view = SkyView(seen: 14, used: 9, dilution: .init(horizontal: 0.91234, position: 1.6))
        let messages = updates.take(.sky(view), now: 0, spooled: 0)
        let state = try JSONValue(parsing: try #require(messages.last { $0.topic == "loctrack/van/state" }).payload)
        #expect(state["satellites_used"]?.doubleValue == 9)
        #expect(state["satellites_seen"]?.doubleValue == 14)
        #expect(state["hdop"]?.doubleValue == 0.91234)
        #expect(state["pdop"]?.doubleValue == 1.6)
    }

    @Test("given gpsd goes away when the status arrives then gpsd and the receiver turn OFF and what was held back goes out")
    func gpsdGone() throws {
        var updates = Self.updates(interval: 10)
        _ = updates.take(.status(.connected(.default, release: "3.22")), now: 0, spooled: 0)
        _ = updates.take(.fix(Self.fix(0)), now: 0, spooled: 0)
        _ = updates.take(.fix(Self.fix(1, north: 100)), now: 1000, spooled: 0)
        let error = LocTrackError(.connectionLost, source: .default, reason: "gone")
        let messages = updates.take(.status(.waiting(error, retryIn: .seconds(1))), now: 2000, spooled: 0)
        #expect(messages.map { "\($0.topic) \($0.payload.count < 4 ? $0.text : "…")" } == [
            "loctrack/van/gpsd OFF", "loctrack/van/receiver OFF", "loctrack/van/location …",
        ])
    }

    @Test("given a monitor's regions when they are set, change and one is removed then configurations and states follow")
    func regions() throws {
        var updates = Self.updates(regions: true)
        let first = updates.setRegions(["home": .init(name: "Home", inside: true), "work": .init(name: "work", inside: false)])
        #expect(first.map { "\($0.topic) \($0.text.prefix(3))" } == [
            "homeassistant/binary_sensor/loctrack-van_local/region_home/config {\"n",
            "loctrack/van/region/home ON",
            "homeassistant/binary_sensor/loctrack-van_local/region_work/config {\"n",
            "loctrack/van/region/work OFF",
            "loctrack/van/zones {\"i",
        ])
        #expect(try JSONValue(parsing: first[0].payload)["device_class"]?.stringValue == "presence")
        #expect(try JSONValue(parsing: first[4].payload)["in_zones"] == .array([.string("zone.home")]))
        #expect(updates.setRegions(["home": .init(name: "Home", inside: true), "work": .init(name: "work", inside: false)]).isEmpty)
        let left = updates.setRegions(["home": .init(name: "Home", inside: false)])
        #expect(left.map { "\($0.topic) \($0.text.prefix(3))" } == [
            "homeassistant/binary_sensor/loctrack-van_local/region_work/config ",
            "loctrack/van/region/home OFF",
            "loctrack/van/zones {\"i",
        ])
        #expect(updates.isStale(regionObject: "region_work"))
        #expect(!updates.isStale(regionObject: "region_home"))
        #expect(!updates.isStale(regionObject: "gpsd"))
    }

    // MARK: The odometer

    static let odometerConfig = "homeassistant/sensor/loctrack-van_local/odometer/config"
    static let movingConfig = "homeassistant/binary_sensor/loctrack-van_local/moving/config"

    static func stateDocument(_ messages: [HomeAssistantMessage]) throws -> JSONValue? {
        try messages.last { $0.topic == "loctrack/van/state" }.map { try JSONValue(parsing: $0.payload) }
    }

    @Test("given a command that measures no distance when announced and fed a drive then no odometer or moving entity and no odometer in the state")
    func noOdometerNoEntities() throws {
        var updates = Self.updates(interval: 1)
        var messages = updates.announce(now: 0, spooled: 0)
        messages += updates.take(.status(.connected(.default, release: "3.22")), now: 0, spooled: 0)
        for second in Int64(0)..<5 {
            messages += updates.take(.fix(Self.fix(second, north: Double(second) * 20)), now: second * 1000, spooled: 0)
        }
        messages += updates.announce(now: 6000, spooled: 0)
        #expect(!Self.topics(messages).contains(Self.odometerConfig))
        #expect(!Self.topics(messages).contains(Self.movingConfig))
        let state = try #require(try Self.stateDocument(messages))
        #expect(state["odometer"] == nil)
        #expect(state["moving"] == nil)
    }

    @Test("given the first event with an odometer reading when taken then the odometer sensor and the moving binary sensor are configured once, before the state that carries them")
    func firstReadingAnnouncesTheEntities() throws {
        var updates = Self.updates()
        _ = updates.announce(now: 0, spooled: 0)
        let first = updates.take(
            .status(.connected(.default, release: "3.22")), odometer: OdometerReading(metres: 1234.4, moving: false),
            now: 0, spooled: 0)
        #expect(Self.topics(first) == [Self.odometerConfig, Self.movingConfig, "loctrack/van/gpsd", "loctrack/van/state"])
        let odometer = try JSONValue(parsing: first[0].payload)
        #expect(odometer["device_class"]?.stringValue == "distance")
        #expect(odometer["state_class"]?.stringValue == "total_increasing")
        #expect(odometer["unit_of_measurement"]?.stringValue == "km")
        #expect(odometer["suggested_display_precision"]?.doubleValue == 1)
        #expect(odometer["unique_id"]?.stringValue == "loctrack-van_local_odometer")
        #expect(odometer["object_id"]?.stringValue == "loctrack-van_local_odometer")
        #expect(odometer["state_topic"]?.stringValue == "loctrack/van/state")
        #expect(odometer["value_template"]?.stringValue == "{{ value_json.odometer }}")
        #expect(odometer["availability_topic"]?.stringValue == "loctrack/van/availability")
        #expect(odometer["device"]?["identifiers"] == .array([.string("loctrack_loctrack-van_local")]))
        let moving = try JSONValue(parsing: first[1].payload)
        #expect(moving["device_class"]?.stringValue == "moving")
        #expect(moving["unique_id"]?.stringValue == "loctrack-van_local_moving")
        #expect(moving["state_topic"]?.stringValue == "loctrack/van/state")
        #expect(moving["value_template"]?.stringValue == "{{ 'ON' if value_json.moving else 'OFF' }}")
        #expect(moving["unit_of_measurement"] == nil && moving["state_class"] == nil)
        let state = try #require(try Self.stateDocument(first))
        #expect(state["odometer"]?.doubleValue == 1.234)
        #expect(state["moving"] == .bool(false))
        #expect(state["mode"]?.stringValue == "no fix")
        let next = updates.take(.fix(Self.fix(0)), odometer: OdometerReading(metres: 1234.4, moving: false), now: 0, spooled: 0)
        #expect(!Self.topics(next).contains(Self.odometerConfig) && !Self.topics(next).contains(Self.movingConfig))
    }

    @Test("given a moving receiver at 1 Hz with the odometer when fixes arrive then the distance goes out once per interval and a stop at once")
    func odometerWithTheInterval() throws {
        var updates = Self.updates(interval: 10)
        var sent: [(second: Int64, kilometres: Double?, moving: Bool?)] = []
        func take(_ second: Int64, metres: Double, moving: Bool) throws {
            let messages = updates.take(
                .fix(Self.fix(second, north: metres)), odometer: OdometerReading(metres: metres, moving: moving),
                now: second * 1000, spooled: 0)
            if let state = try Self.stateDocument(messages) {
                sent.append((second, state["odometer"]?.doubleValue, state["moving"]?.boolValue))
            }
        }
        for second in Int64(0)..<25 { try take(second, metres: Double(second) * 15, moving: true) }
        // Stopped at 375 m: the change of motion goes at once, the parked readings no more.
        for second in Int64(25)..<40 { try take(second, metres: 375, moving: false) }
        #expect(sent.map(\.second) == [0, 10, 20, 25])
        #expect(sent.map(\.kilometres) == [0, 0.15, 0.3, 0.375])
        #expect(sent.map(\.moving) == [true, true, true, false])
    }

    @Test("given the odometer was announced when Home Assistant restarts then its entities are announced again with the latest reading")
    func reannouncedWithTheOdometer() throws {
        var updates = Self.updates()
        _ = updates.take(.fix(Self.fix(0)), odometer: OdometerReading(metres: 52_000.4996, moving: true), now: 0, spooled: 0)
        let again = updates.announce(now: 1000, spooled: 0)
        #expect(Self.topics(again).contains(Self.odometerConfig))
        #expect(Self.topics(again).contains(Self.movingConfig))
        #expect(Self.topics(again).firstIndex(of: Self.movingConfig)! < Self.topics(again).firstIndex(of: "loctrack/van/state")!)
        let state = try #require(try Self.stateDocument(again))
        #expect(state["odometer"]?.doubleValue == 52)
        #expect(state["moving"] == .bool(true))
    }
}
