/// Everything a ``Publisher`` needs, resolved: where to connect, how to log in, the
/// spool, and the message settings.
public struct PublisherConfiguration: Sendable {
    /// A message the broker publishes for this client when the connection dies unannounced.
    public struct Will: Sendable, Hashable {
        public var topic: String
        public var payload: [UInt8]
        /// The broker keeps it for new subscribers (Home Assistant's `offline`), where an
        /// OwnTracks last will is not kept.
        public var retain: Bool

        public init(topic: String, payload: [UInt8], retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    /// A message sent on every connection, before anything from the spool, and not
    /// spooled: Home Assistant's retained `online`, which must follow each time the
    /// broker published the will.
    public typealias Greeting = Will

    public var broker: BrokerURL
    public var password: String?
    /// Verify a TLS broker against this CA file (PEM) instead of the system's CAs.
    public var caFile: String?
    /// Stable across restarts: the broker keeps this client's session (clean session off).
    public var clientID: String
    public var qos: Int
    public var retain: Bool
    public var spoolDirectory: String
    public var spoolLimitBytes: Int64
    public var will: Will?
    /// Sent on every connection (accepted CONNACK), before the spool's messages.
    public var greetings: [Greeting] = []
    /// Topics subscribed to (QoS 1) on every connection; what arrives on them goes to the
    /// publisher's `onMessage`.
    public var subscriptions: [String] = []
    public var keepAliveSeconds: Int32 = 30
    /// QoS 1/2 messages sent and not yet acknowledged, at most. libmosquitto walks its
    /// whole in-flight list on every publish and every acknowledgement, so each message
    /// costs time in proportion to the window, while too small a window leaves the thread
    /// waiting for acknowledgements; the runs that chose 200 are in docs/performance.md
    /// ("Publishing over MQTT").
    public var maximumInflight = 200

    public init(
        broker: BrokerURL, password: String? = nil, caFile: String? = nil, clientID: String, qos: Int = 1,
        retain: Bool = false, spoolDirectory: String, spoolLimitBytes: Int64, will: Will? = nil
    ) {
        self.broker = broker
        self.password = password
        self.caFile = caFile
        self.clientID = clientID
        self.qos = qos
        self.retain = retain
        self.spoolDirectory = spoolDirectory
        self.spoolLimitBytes = spoolLimitBytes
        self.will = will
    }
}
