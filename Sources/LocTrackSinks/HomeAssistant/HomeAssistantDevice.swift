import LocTrack
package import LocTrackMQTT
import LocTrackProcess

/// Who loctrack is to Home Assistant: the device, its entities, and the topics of their
/// discovery configurations and states (Home Assistant's "MQTT discovery").
///
/// Topics: each entity's configuration at `PREFIX/COMPONENT/NODE/OBJECT/config`; the
/// states under the `--publish` URL's topic, `BASE/availability`, `BASE/location` (the
/// tracker's attributes), `BASE/state` (one JSON document for every sensor),
/// `BASE/gpsd` and `BASE/receiver` (connectivity), `BASE/region/ID` (presence). With the
/// odometer, its sensor and the moving sensor read `BASE/state` too.
package struct HomeAssistantDevice: Sendable {
    package let prefix: String
    package let node: String
    package let name: String
    package let base: String

    package init(options: HomeAssistantOptions, clientID: String, base: String, hostName: @autoclosure () -> String) {
        prefix = options.prefix
        node = options.node ?? HomeAssistantOptions.nodeID(clientID: clientID)
        name = options.name ?? hostName()
        self.base = base
    }

    package var availabilityTopic: String { base + "/availability" }
    package var locationTopic: String { base + "/location" }
    package var stateTopic: String { base + "/state" }
    package var gpsdTopic: String { base + "/gpsd" }
    package var receiverTopic: String { base + "/receiver" }
    package var zonesTopic: String { base + "/zones" }
    /// Where Home Assistant says `online` when it starts.
    package var homeAssistantStatusTopic: String { prefix + "/status" }

    package func regionTopic(_ region: String) -> String { base + "/region/" + Self.objectID(region) }

    package func configTopic(_ component: String, _ object: String) -> String {
        "\(prefix)/\(component)/\(node)/\(object)/config"
    }

    /// The object id of one of this node's binary sensors, from its configuration's topic.
    package func binarySensorObject(configTopic topic: String) -> String? {
        let head = "\(prefix)/binary_sensor/\(node)/"
        guard topic.hasPrefix(head), topic.hasSuffix("/config"), topic.count > head.count + 7 else { return nil }
        return String(topic.dropFirst(head.count).dropLast(7))
    }

    /// A region id as an object id and topic level: what a node id allows, the rest `_`.
    package static func objectID(_ region: String) -> String {
        HomeAssistantOptions.nodeID(clientID: region)
    }

    // MARK: Discovery configurations

    /// The sensors, each a value of the state document (``HomeAssistantState``).
    package struct Sensor {
        let key: String
        let name: String
        var unit: String? = nil
        var deviceClass: String? = nil
        var measurement = false
        var icon: String? = nil
    }

    package static let sensors: [Sensor] = [
        Sensor(key: "mode", name: "Fix mode", icon: "mdi:crosshairs-gps"),
        Sensor(key: "status", name: "Fix status", icon: "mdi:satellite-variant"),
        Sensor(key: "satellites_used", name: "Satellites used", measurement: true, icon: "mdi:satellite-uplink"),
        Sensor(key: "satellites_seen", name: "Satellites seen", measurement: true, icon: "mdi:satellite-variant"),
        Sensor(key: "hdop", name: "HDOP", measurement: true, icon: "mdi:target"),
        Sensor(key: "pdop", name: "PDOP", measurement: true, icon: "mdi:target"),
        Sensor(key: "speed", name: "Speed", unit: "m/s", deviceClass: "speed", measurement: true),
        Sensor(key: "altitude", name: "Altitude", unit: "m", deviceClass: "distance", measurement: true),
        Sensor(key: "horizontal_error", name: "Horizontal error", unit: "m", deviceClass: "distance", measurement: true),
        Sensor(key: "spool", name: "Messages waiting", measurement: true, icon: "mdi:tray-full"),
    ]

    /// Every configuration of the device's own entities (not the regions'), in the order
    /// they are announced: the tracker, the sensors, the connectivity sensors.
    package func configurations(withZones: Bool) -> [HomeAssistantMessage] {
        var messages = [HomeAssistantMessage(configTopic("device_tracker", "location"), json: .object(entity(
            object: "location", name: "Location", icon: "mdi:car",
            [JSONMember("json_attributes_topic", .string(locationTopic)), JSONMember("source_type", .string("gps"))])))]
        for sensor in Self.sensors {
            var members = [
                JSONMember("state_topic", .string(stateTopic)),
                JSONMember("value_template", .string("{{ value_json.\(sensor.key) }}")),
            ]
            if let unit = sensor.unit { members.append(JSONMember("unit_of_measurement", .string(unit))) }
            if let deviceClass = sensor.deviceClass { members.append(JSONMember("device_class", .string(deviceClass))) }
            if sensor.measurement { members.append(JSONMember("state_class", .string("measurement"))) }
            if sensor.key != "mode" && sensor.key != "status" && sensor.key != "spool" {
                members.append(JSONMember("suggested_display_precision", .number(sensor.key.hasPrefix("satellites") ? 0 : 1)))
            }
            messages.append(HomeAssistantMessage(
                configTopic("sensor", sensor.key),
                json: .object(entity(object: sensor.key, name: sensor.name, icon: sensor.icon, members))))
        }
        for (object, name, topic) in [("gpsd", "gpsd", gpsdTopic), ("receiver", "Receiver", receiverTopic)] {
            messages.append(HomeAssistantMessage(configTopic("binary_sensor", object), json: .object(entity(
                object: object, name: name, icon: nil,
                [JSONMember("state_topic", .string(topic)), JSONMember("device_class", .string("connectivity"))]))))
        }
        if withZones {
            messages.append(HomeAssistantMessage(configTopic("device_tracker", "zones"), json: .object(entity(
                object: "zones", name: "Regions", icon: "mdi:map-marker-radius",
                [JSONMember("json_attributes_topic", .string(zonesTopic)), JSONMember("source_type", .string("gps"))]))))
        }
        return messages
    }

    /// The odometer's entities, announced once the command's batches carry its readings
    /// (`--odometer`, a Traccar sink): the distance travelled, a `total_increasing` sensor
    /// in km (Home Assistant's long-term statistics then sum each day's distance), and
    /// whether the receiver moves. Both read ``stateTopic``'s document.
    package func distanceConfigurations() -> [HomeAssistantMessage] {
        [
            HomeAssistantMessage(configTopic("sensor", "odometer"), json: .object(entity(
                object: "odometer", name: "Odometer", icon: "mdi:counter",
                [
                    JSONMember("state_topic", .string(stateTopic)),
                    JSONMember("value_template", .string("{{ value_json.odometer }}")),
                    JSONMember("unit_of_measurement", .string("km")),
                    JSONMember("device_class", .string("distance")),
                    JSONMember("state_class", .string("total_increasing")),
                    JSONMember("suggested_display_precision", .number(1)),
                ]))),
            HomeAssistantMessage(configTopic("binary_sensor", "moving"), json: .object(entity(
                object: "moving", name: "Moving", icon: nil,
                [
                    JSONMember("state_topic", .string(stateTopic)),
                    JSONMember("value_template", .string("{{ 'ON' if value_json.moving else 'OFF' }}")),
                    JSONMember("device_class", .string("moving")),
                ]))),
        ]
    }

    /// A region's presence sensor: on while the monitor says the receiver is inside.
    package func regionConfiguration(_ region: String, name: String) -> HomeAssistantMessage {
        let object = "region_" + Self.objectID(region)
        return HomeAssistantMessage(configTopic("binary_sensor", object), json: .object(entity(
            object: object, name: name, icon: nil,
            [JSONMember("state_topic", .string(regionTopic(region))), JSONMember("device_class", .string("presence"))])))
    }

    /// An empty retained configuration: Home Assistant removes the entity.
    package func regionRemoval(_ region: String) -> HomeAssistantMessage {
        HomeAssistantMessage(configTopic("binary_sensor", "region_" + Self.objectID(region)), "")
    }

    /// What every entity's configuration shares: its unique id, the device, availability.
    private func entity(object: String, name: String, icon: String?, _ specific: [JSONMember]) -> [JSONMember] {
        var members = [
            JSONMember("name", .string(name)),
            JSONMember("unique_id", .string("\(node)_\(object)")),
            JSONMember("object_id", .string("\(node)_\(object)")),
        ]
        members += specific
        if let icon { members.append(JSONMember("icon", .string(icon))) }
        members += [
            JSONMember("availability_topic", .string(availabilityTopic)),
            JSONMember("device", .object([
                JSONMember("identifiers", .array([.string("loctrack_\(node)")])),
                JSONMember("name", .string(self.name)),
                JSONMember("model", .string("gpsd receiver via loctrack")),
                JSONMember("manufacturer", .string("loctrack")),
                JSONMember("sw_version", .string(LocTrackVersion.number)),
            ])),
            JSONMember("origin", .object([
                JSONMember("name", .string("loctrack")), JSONMember("sw_version", .string(LocTrackVersion.number)),
            ])),
        ]
        return members
    }
}
