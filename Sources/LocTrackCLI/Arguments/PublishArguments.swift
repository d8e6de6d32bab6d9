import LocTrackMQTT
import LocTrackFormats
import LocTrackSinks
import LocTrackTraccar

/// `--publish URL` and its companions, collected while `stream` or `monitor run` scans its
/// arguments, then checked together: one place for both commands.
///
/// `--publish` may be given more than once (a home broker and a fleet broker). Each
/// companion option (`--qos`, `--retain`, `--client-id`, `--cafile`, `--password-file`,
/// `--spool`, `--spool-limit`) belongs to the nearest `--publish` before it; companions
/// given before the first `--publish` belong to the first. So with one broker the
/// options may stand anywhere, as they always could. `--tid` names the tracker, not a
/// broker: it applies to every broker.
struct PublishArguments {
    /// One `--publish` and its companions: an MQTT broker (`mqtt://`, `mqtts://`) or a
    /// Traccar server (`http://`, `https://`).
    private struct Broker {
        var url: BrokerURL?
        var traccar: TraccarURL?
        /// A destination that takes no companion (`udp://`), already its sink's spec.
        var plain: AnySinkSpec?
        /// `--traccar-interval`, `--traccar-distance`.
        var traccarInterval: Double?
        var traccarDistance: Double?
        /// The first companion given that only a broker takes (`--qos`, `--ha-…`), for
        /// "--qos needs an mqtt:// URL".
        var firstBrokerCompanion: String?
        /// The first companion given that only a Traccar server takes.
        var firstTraccarCompanion: String?
        /// The first companion given of any kind, for "--qos needs an mqtt:// URL" after a `udp://`.
        var firstAnyCompanion: String?
        var isGiven: Bool { url != nil || traccar != nil || plain != nil }
        var qos = PublishOptions.defaultQoS
        var retain = false
        var clientID: String?
        var caFile: String?
        var passwordFile: String?
        var spoolDirectory: String?
        var spoolLimitBytes = PublishOptions.defaultSpoolLimitBytes
        var homeAssistant = false
        var homeAssistantOptions = HomeAssistantOptions()
        /// The first `--ha-…` companion given, for "--ha-name needs --ha-discovery".
        var firstHomeAssistantCompanion: String?
    }

    /// The brokers in the order given; the first collects the companions that come before
    /// any `--publish`.
    private var brokers = [Broker()]
    /// `--tid`: also the tracker id of `stream --format owntracks` without `--publish`.
    private(set) var tid: String?
    /// The first companion option given other than `--tid`, for "--qos needs --publish".
    private var firstCompanion: String?

    /// Takes `option` and its value when it is a publishing option.
    /// - Returns: false when `option` is not one (the caller reports it as unknown).
    mutating func take(_ option: String, from scanner: inout ArgumentScanner) throws(UsageError) -> Bool {
        switch option {
        case "--publish":
            let text = try scanner.value(for: option)
            if brokers[brokers.count - 1].isGiven { brokers.append(Broker()) }
            if let scheme = Self.plainSchemes.first(where: { text.hasPrefix($0.prefix) }) {
                do throws(SinkURLError) {
                    brokers[brokers.count - 1].plain = AnySinkSpec(try scheme.parse(text))
                } catch {
                    throw .invalidBrokerURL(reason: error.description)
                }
                return true
            }
            if text.hasPrefix("http://") || text.hasPrefix("https://") {
                do {
                    brokers[brokers.count - 1].traccar = try TraccarURL(parsing: text)
                } catch {
                    throw .invalidBrokerURL(reason: error.description)
                }
                return true
            }
            guard text.hasPrefix("mqtt://") || text.hasPrefix("mqtts://") else {
                let others = Self.plainSchemes.map { "\($0.prefix) (\($0.what))" }
                throw .invalidBrokerURL(
                    reason: "the URL must start with mqtt:// or mqtts:// (a broker), http:// or https:// (a Traccar server), "
                        + "or " + others.joined(separator: ", or "))
            }
            do {
                brokers[brokers.count - 1].url = try BrokerURL(parsing: text)
            } catch {
                throw .invalidBrokerURL(reason: error.description)
            }
            return true
        case "--tid":
            tid = try scanner.trackerID()
            return true
        default:
            guard try takeCompanion(option, from: &scanner, into: &brokers[brokers.count - 1]) else { return false }
            if firstCompanion == nil { firstCompanion = option }
            return true
        }
    }

    private func takeCompanion(_ option: String, from scanner: inout ArgumentScanner, into broker: inout Broker)
        throws(UsageError) -> Bool
    {
        switch option {
        case "--traccar-interval":
            broker.traccarInterval = try scanner.positiveNumber(for: option, unit: "seconds")
        case "--traccar-distance":
            broker.traccarDistance = try scanner.positiveNumber(for: option, unit: "metres")
        case "--qos":
            let text = try scanner.value(for: option)
            guard let number = Int(text), PublishOptions.isValidQoS(number) else {
                throw .invalidValue(text, option: option, expected: "0, 1 or 2")
            }
            broker.qos = number
        case "--retain":
            broker.retain = true
        case "--client-id":
            let text = try scanner.value(for: option)
            guard PublishOptions.isValidClientID(text) else {
                throw .invalidValue(text, option: option, expected: "1 to 65535 bytes without '/', not '.' or '..'")
            }
            broker.clientID = text
        case "--cafile":
            broker.caFile = try scanner.path(for: option, expected: "a file name")
        case "--password-file":
            broker.passwordFile = try scanner.path(for: option, expected: "a file name")
        case "--spool":
            broker.spoolDirectory = try scanner.path(for: option, expected: "a directory")
        case "--spool-limit":
            let text = try scanner.value(for: option)
            guard let bytes = PublishOptions.byteCount(parsing: text) else {
                throw .invalidValue(text, option: option, expected: "a size of 1 byte or more, e.g. 500000, 500K, 100M, 2G")
            }
            broker.spoolLimitBytes = bytes
        case "--ha-discovery":
            broker.homeAssistant = true
        default:
            guard try takeHomeAssistant(option, from: &scanner, into: &broker.homeAssistantOptions) else { return false }
            if broker.firstHomeAssistantCompanion == nil { broker.firstHomeAssistantCompanion = option }
        }
        if broker.firstAnyCompanion == nil { broker.firstAnyCompanion = option }
        // Which kind of server the option is for: --cafile and the spool's are for both.
        switch option {
        case "--cafile", "--spool", "--spool-limit":
            break
        case "--traccar-interval", "--traccar-distance":
            if broker.firstTraccarCompanion == nil { broker.firstTraccarCompanion = option }
        default:
            if broker.firstBrokerCompanion == nil { broker.firstBrokerCompanion = option }
        }
        return true
    }

    /// `--ha-prefix`, `--ha-name`, `--ha-node`, `--ha-interval`, `--ha-max-error`.
    private func takeHomeAssistant(_ option: String, from scanner: inout ArgumentScanner, into options: inout HomeAssistantOptions)
        throws(UsageError) -> Bool
    {
        switch option {
        case "--ha-prefix":
            let text = try scanner.value(for: option)
            guard HomeAssistantOptions.isValidTopicLevel(text) else {
                throw .invalidValue(text, option: option, expected: "one MQTT topic level: not empty, no '/', '+', '#'")
            }
            options.prefix = text
        case "--ha-node":
            let text = try scanner.value(for: option)
            guard HomeAssistantOptions.isValidNodeID(text) else {
                throw .invalidValue(text, option: option, expected: "letters, digits, '_' and '-' (Home Assistant's node id)")
            }
            options.node = text
        case "--ha-name":
            let text = try scanner.value(for: option)
            guard text.contains(where: { !$0.isWhitespace }) else {
                throw .invalidValue(text, option: option, expected: "a name that is not empty")
            }
            options.name = text
        case "--ha-interval":
            options.intervalSeconds = try scanner.positiveNumber(for: option, unit: "seconds")
        case "--ha-max-error":
            let metres = try scanner.nonNegativeNumber(for: option, unit: "metres")
            options.maximumError = metres > 0 ? metres : nil
        default:
            return false
        }
        return true
    }

    /// The destinations that take no companion, by the prefix of their URL: each parses its
    /// URL into its sink's spec. A new such destination registers here, and nowhere else.
    private static let plainSchemes:
        [(prefix: String, what: String, parse: @Sendable (String) throws(SinkURLError) -> any SinkSpec)] = [
            ("udp://", "NMEA to a chart plotter", { text throws(SinkURLError) in try UDPSinkSpec(parsing: text) }),
        ]

    /// Every `--publish` as its sink's spec, in the order given: brokers (Home Assistant's
    /// with `--ha-discovery`), Traccar servers, and the destinations of ``plainSchemes``.
    /// - Throws: what ``options(trackerIDAlone:)`` and ``traccarOptions()`` throw, and a
    ///   companion given to a destination that takes none.
    func specs(trackerIDAlone: Bool = false) throws(UsageError) -> [AnySinkSpec] {
        var publishes = try options(trackerIDAlone: trackerIDAlone)[...]
        var traccars = try traccarOptions()[...]
        var specs: [AnySinkSpec] = []
        for broker in brokers where broker.isGiven {
            if broker.url != nil, let publish = publishes.popFirst() {
                specs.append(MQTTSinkSpec.spec(for: publish))
            } else if broker.traccar != nil, let traccar = traccars.popFirst() {
                specs.append(AnySinkSpec(TraccarSinkSpec(traccar)))
            } else if let plain = broker.plain {
                if let companion = broker.firstAnyCompanion {
                    throw .needs(companion, what: "an mqtt://, mqtts://, http:// or https:// URL in --publish")
                }
                specs.append(plain)
            }
        }
        // The spools given with --spool, compared across every kind now, so that a clash is
        // found before anything starts; the defaults, which follow from the environment, are
        // compared by the same rule when the sinks start (``SinkPipeline``).
        if let folder = SinkPipeline.sharedSpoolGiven(specs) { throw .sharedSpool(folder) }
        return specs
    }

    /// One ``PublishOptions`` per `--publish`, in the order given; empty without `--publish`.
    /// - Parameter trackerIDAlone: `--tid` is allowed without `--publish` (the caller checks
    ///   what else it needs: stream's `--format owntracks`).
    /// - Throws: a companion without `--publish`; `--cafile` with an `mqtt://` URL; two
    ///   `--publish` to one broker with one client id (the broker would let only one of them
    ///   stay connected).
    func options(trackerIDAlone: Bool = false) throws(UsageError) -> [PublishOptions] {
        guard brokers[0].isGiven else {
            if let firstCompanion { throw .needs(firstCompanion, what: "--publish") }
            if tid != nil && !trackerIDAlone { throw .needs("--tid", what: "--publish") }
            return []
        }
        var options: [PublishOptions] = []
        for broker in brokers {
            guard let url = broker.url else { continue }
            if let companion = broker.firstTraccarCompanion {
                throw .needs(companion, what: "an http:// or https:// URL in --publish (a Traccar server)")
            }
            if broker.caFile != nil && !url.usesTLS {
                throw .needs("--cafile", what: "an mqtts:// URL in --publish (it is the CA for TLS)")
            }
            if !broker.homeAssistant, let companion = broker.firstHomeAssistantCompanion {
                throw .needs(companion, what: "--ha-discovery")
            }
            options.append(PublishOptions(
                broker: url, qos: broker.qos, retain: broker.retain, clientID: broker.clientID, caFile: broker.caFile,
                passwordFile: broker.passwordFile, spoolDirectory: broker.spoolDirectory,
                spoolLimitBytes: broker.spoolLimitBytes, tid: tid,
                homeAssistant: broker.homeAssistant ? broker.homeAssistantOptions : nil))
        }
        try Self.checkDistinct(options)
        return options
    }

    /// One ``TraccarOptions`` per `--publish http(s)://…`, in the order given.
    /// - Throws: a broker's companion (`--qos`, `--ha-…`) with a Traccar URL; `--cafile` with
    ///   `http://`; two of them into one `--spool` folder.
    func traccarOptions() throws(UsageError) -> [TraccarOptions] {
        var options: [TraccarOptions] = []
        for broker in brokers {
            guard let url = broker.traccar else { continue }
            if let companion = broker.firstBrokerCompanion ?? (broker.homeAssistant ? "--ha-discovery" : nil) {
                throw .needs(companion, what: "an mqtt:// or mqtts:// URL in --publish (a broker)")
            }
            if broker.caFile != nil && !url.usesTLS {
                throw .needs("--cafile", what: "an https:// URL in --publish (it is the CA for TLS)")
            }
            let traccar = TraccarOptions(
                url: url, caFile: broker.caFile, spoolDirectory: broker.spoolDirectory,
                spoolLimitBytes: broker.spoolLimitBytes,
                thinning: Thinning(interval: broker.traccarInterval, distance: broker.traccarDistance))
            options.append(traccar)
        }
        return options
    }

    /// What two brokers of one command may not share: a session (spool folders are compared
    /// across every kind in ``specs(trackerIDAlone:)``).
    private static func checkDistinct(_ options: [PublishOptions]) throws(UsageError) {
        for (index, later) in options.enumerated() {
            for earlier in options[..<index] {
                if earlier.broker.host == later.broker.host, earlier.broker.port == later.broker.port,
                   earlier.clientID == later.clientID {
                    throw .sharedBrokerSession(broker: "\(later.broker.host):\(later.broker.port)", clientID: later.clientID)
                }
            }
        }
    }
}
