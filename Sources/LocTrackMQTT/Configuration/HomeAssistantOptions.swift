/// `--ha-discovery` and its companions: a broker that gets Home Assistant's MQTT
/// discovery messages (a device tracker, sensors, binary sensors) instead of lines.
public struct HomeAssistantOptions: Sendable, Hashable {
    /// Home Assistant's own default discovery prefix.
    public static let defaultPrefix = "homeassistant"
    /// The tracker and the sensors are updated at most this often (the latest value goes
    /// out within it; a change of fix mode or status at once).
    public static let defaultIntervalSeconds = 10.0
    /// A fix whose eph is larger does not move the tracker: Home Assistant counts a device
    /// as inside a zone when its accuracy circle reaches the zone, so a 1,900 m eph (gpsd's
    /// first fix, or after a tunnel) can put it in a zone kilometres away.
    public static let defaultMaximumError = 100.0

    /// The discovery prefix (`--ha-prefix`): one topic level.
    public var prefix: String
    /// The device's name in Home Assistant (`--ha-name`), any text; nil is the host name.
    public var name: String?
    /// The node id in discovery topics (`--ha-node`); nil is made from the client id
    /// (``nodeID(clientID:)``).
    public var node: String?
    public var intervalSeconds: Double
    /// nil: no limit (`--ha-max-error 0`).
    public var maximumError: Double?

    public init(
        prefix: String = defaultPrefix, name: String? = nil, node: String? = nil,
        intervalSeconds: Double = defaultIntervalSeconds, maximumError: Double? = defaultMaximumError
    ) {
        self.prefix = prefix
        self.name = name
        self.node = node
        self.intervalSeconds = intervalSeconds
        self.maximumError = maximumError
    }

    /// One MQTT topic level a discovery message can be published under: not empty, no
    /// `/`, no wildcard (`+`, `#`), no NUL, at most 256 bytes.
    public static func isValidTopicLevel(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256 && !text.contains { "/+#\0".contains($0) }
    }

    /// Home Assistant's rule for a node id: letters, digits, `_` and `-`.
    public static func isValidNodeID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256 && text.unicodeScalars.allSatisfy(isNodeIDCharacter)
    }

    /// The node id of a client id: every character Home Assistant does not allow in one
    /// becomes `_` (`loctrack-van.local` is `loctrack-van_local`).
    public static func nodeID(clientID: String) -> String {
        String(String.UnicodeScalarView(clientID.unicodeScalars.map { isNodeIDCharacter($0) ? $0 : "_" }))
    }

    private static func isNodeIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }
}
