public import LocTrack

/// What `--publish URL` and its companion options ask for: the publisher's configuration.
///
/// The command line checks each value with the rules below (``isValidQoS(_:)``,
/// ``isValidClientID(_:)``, ``isValidTrackerID(_:)``, ``byteCount(parsing:)``); a program
/// that builds its own options should check them the same way.
public struct PublishOptions: Sendable, Hashable {
    public static let defaultQoS = 1
    /// 100 MB (SI: 100,000,000 bytes).
    public static let defaultSpoolLimitBytes: Int64 = 100_000_000
    /// The environment variable with the broker password; it wins over `--password-file`.
    public static let passwordVariable = "LOCTRACK_MQTT_PASSWORD"

    public var broker: BrokerURL
    /// 0 at most once, 1 at least once (the default), 2 exactly once.
    public var qos: Int
    /// The broker keeps the last message of the topic for new subscribers.
    public var retain: Bool
    /// The MQTT client id: `loctrack-HOST` by default (``defaultClientID(hostName:)``), the
    /// same across restarts, so that the broker's persistent session and the spool's folder
    /// are found again. MQTT 3.1.1 promises only ids of 1 to 23 letters and digits;
    /// mosquitto accepts longer ones and any UTF-8 (it is also a folder name: no `/`).
    public var clientID: String
    /// `--cafile`: the CA certificates to check an `mqtts://` broker with (nil: the system's).
    public var caFile: String?
    /// `--password-file`: its first line is the password (``password(environment:readFile:)``).
    public var passwordFile: String?
    /// `--spool`: nil is the default folder (``spoolDirectory(environment:)``).
    public var spoolDirectory: String?
    /// The spool's size limit in bytes; beyond it the oldest messages are dropped.
    public var spoolLimitBytes: Int64
    /// `--tid`: the OwnTracks tracker id; nil: from the host name (LocTrackFormats' `OwnTracksEncoder.defaultTrackerID`).
    public var tid: String?
    /// `--ha-discovery`: this broker gets Home Assistant's discovery and state messages
    /// instead of lines.
    public var homeAssistant: HomeAssistantOptions?

    /// - Parameters:
    ///   - clientID: nil is ``defaultClientID(hostName:)``.
    ///   - hostName: the name the default client id is made of (read only when it is needed).
    public init(
        broker: BrokerURL, qos: Int = defaultQoS, retain: Bool = false, clientID: String? = nil,
        caFile: String? = nil, passwordFile: String? = nil, spoolDirectory: String? = nil,
        spoolLimitBytes: Int64 = defaultSpoolLimitBytes, tid: String? = nil,
        homeAssistant: HomeAssistantOptions? = nil, hostName: @autoclosure () -> String = HostName.current()
    ) {
        self.homeAssistant = homeAssistant
        self.broker = broker
        self.qos = qos
        self.retain = retain
        self.clientID = clientID ?? Self.defaultClientID(hostName: hostName())
        self.caFile = caFile
        self.passwordFile = passwordFile
        self.spoolDirectory = spoolDirectory
        self.spoolLimitBytes = spoolLimitBytes
        self.tid = tid
    }

    /// `loctrack-` and the host name (up to its first dot, as ``HostName/current()`` gives it).
    public static func defaultClientID(hostName: String) -> String {
        "loctrack-" + HostName.short(hostName).filter { $0 != "/" && $0 != "\0" }
    }

    /// MQTT's quality-of-service levels: at most once, at least once, exactly once.
    public static let qosLevels = 0...2

    public static func isValidQoS(_ qos: Int) -> Bool {
        qosLevels.contains(qos)
    }

    /// 1 to 65535 bytes of UTF-8, no `/` or NUL, not `.` or `..` (it names the spool's folder).
    public static func isValidClientID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 65_535 && !id.contains("/") && !id.contains("\0") && id != "." && id != ".."
    }

    /// One or two ASCII letters or digits, as the OwnTracks apps show on a map.
    public static func isValidTrackerID(_ tid: String) -> Bool {
        (1...2).contains(tid.count) && tid.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit }
    }

    /// A size in bytes: digits, optionally followed by `K`, `M` or `G` (either case), which
    /// are SI multiples as for disks: `500K` is 500,000, `100M` 100,000,000, `2G`
    /// 2,000,000,000. Nil for anything else, 0, or more than `Int64.max`.
    public static func byteCount(parsing text: String) -> Int64? {
        var digits = Substring(text)
        var multiplier: Int64 = 1
        switch text.last {
        case "K", "k": multiplier = 1_000
        case "M", "m": multiplier = 1_000_000
        case "G", "g": multiplier = 1_000_000_000
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let number = Int64(digits) else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow || bytes == 0 ? nil : bytes
    }
}
