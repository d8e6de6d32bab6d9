import LocTrackMQTT
import Testing

@Suite("Broker URL", .timeLimit(.minutes(1)))
struct BrokerURLTests {
    @Test("given a plain mqtt URL when parsed then the default port is 1883 and the topic keeps its levels")
    func plain() throws {
        let url = try BrokerURL(parsing: "mqtt://broker.local/owntracks/alice/car")
        #expect(url.usesTLS == false)
        #expect(url.user == nil)
        #expect(url.host == "broker.local")
        #expect(url.port == 1883)
        #expect(url.topic == "owntracks/alice/car")
        #expect(url.description == "mqtt://broker.local:1883/owntracks/alice/car")
    }

    @Test("given an mqtts URL with a user and a port when parsed then each part is taken")
    func tlsWithUserAndPort() throws {
        let url = try BrokerURL(parsing: "mqtts://alice@mqtt.example.org:8884/gps")
        #expect(url.usesTLS)
        #expect(url.user == "alice")
        #expect(url.host == "mqtt.example.org")
        #expect(url.port == 8884)
        #expect(url.topic == "gps")
        #expect(url.description == "mqtts://alice@mqtt.example.org:8884/gps")
    }

    @Test("given mqtts without a port when parsed then the port is 8883")
    func tlsDefaultPort() throws {
        #expect(try BrokerURL(parsing: "mqtts://h/t").port == 8883)
        #expect(try BrokerURL(parsing: "MQTTS://h/t").usesTLS)
    }

    @Test("given IPv4 and bracketed IPv6 hosts when parsed then the host has no brackets and prints with them")
    func addresses() throws {
        let v4 = try BrokerURL(parsing: "mqtt://192.168.1.20:1884/t")
        #expect(v4.host == "192.168.1.20")
        #expect(v4.port == 1884)
        let v6 = try BrokerURL(parsing: "mqtt://[::1]:1885/a/b")
        #expect(v6.host == "::1")
        #expect(v6.port == 1885)
        #expect(v6.description == "mqtt://[::1]:1885/a/b")
        #expect(try BrokerURL(parsing: "mqtt://[fe80::1:2]/t").port == 1883)
    }

    @Test("given a percent-encoded user when parsed then it is decoded, and printed encoded again")
    func percentEncodedUser() throws {
        let url = try BrokerURL(parsing: "mqtt://me%40example.org@h/t")
        #expect(url.user == "me@example.org")
        #expect(url.description == "mqtt://me%40example.org@h:1883/t")
        #expect(try BrokerURL(parsing: "mqtt://j%C3%BCrg@h/t").user == "jürg")
    }

    @Test("given a password in the URL when parsed then it is refused, pointing to the safe ways")
    func password() {
        #expect(throws: PublishConfigurationError.passwordInURL) { try BrokerURL(parsing: "mqtt://alice:secret@h/t") }
        #expect(throws: PublishConfigurationError.passwordInURL) { try BrokerURL(parsing: "mqtts://alice:@h/t") }
        #expect(PublishConfigurationError.passwordInURL.description ==
            "the broker URL must not contain a password (it would show in ps): use LOCTRACK_MQTT_PASSWORD or --password-file")
    }

    @Test("given malformed URLs when parsed then each error is one line saying what is wrong",
          arguments: [
              ("http://h/t", PublishConfigurationError.unsupportedScheme),
              ("broker.local/t", .unsupportedScheme),
              ("mqtt://", .missingHost),
              ("mqtt:///t", .missingHost),
              ("mqtt://alice@/t", .missingHost),
              ("mqtt://h", .missingTopic),
              ("mqtt://h:1883", .missingTopic),
              ("mqtt://h/", .missingTopic),
              ("mqtt://h:0/t", .invalidPort("0")),
              ("mqtt://h:65536/t", .invalidPort("65536")),
              ("mqtt://h:/t", .invalidPort("")),
              ("mqtt://h:x1/t", .invalidPort("x1")),
              ("mqtt://::1/t", .invalidHost("::1")),
              ("mqtt://[::1/t", .invalidHost("[::1")),
              ("mqtt://[::1]x/t", .invalidHost("[::1]x")),
              ("mqtt://[host]/t", .invalidHost("host")),
              ("mqtt://bad..name/t", .invalidHost("bad..name")),
              ("mqtt://b%20d/t", .invalidHost("b%20d")),
              ("mqtt://300.1.1.1/t", .invalidHost("300.1.1.1")),
              ("mqtt://@h/t", .invalidUser),
              ("mqtt://a%4@h/t", .invalidUser),
              ("mqtt://a%zz@h/t", .invalidUser),
              ("mqtt://h/a/+/c", .invalidTopic(reason: "contains '+', a wildcard: messages cannot be published to it")),
              ("mqtt://h/a/#", .invalidTopic(reason: "contains '#', a wildcard: messages cannot be published to it")),
              ("mqtt://h/$SYS/x", .invalidTopic(reason: "starts with '$', which brokers keep for themselves")),
              ("mqtt://h/a\u{0}b", .invalidTopic(reason: "contains a NUL character")),
          ])
    func malformed(text: String, error: PublishConfigurationError) {
        #expect(throws: error) { try BrokerURL(parsing: text) }
    }

    @Test("given each error when described then it is the exact line")
    func messages() {
        #expect(PublishConfigurationError.unsupportedScheme.description == "the broker URL must start with mqtt:// or mqtts://")
        #expect(PublishConfigurationError.missingHost.description ==
            "the broker URL has no host: mqtt[s]://[USER@]HOST[:PORT]/TOPIC")
        #expect(PublishConfigurationError.missingTopic.description ==
            "the broker URL has no topic: mqtt[s]://[USER@]HOST[:PORT]/TOPIC")
        #expect(PublishConfigurationError.invalidPort("0").description ==
            "the broker URL's port '0' is not a number from 1 to 65535")
        #expect(PublishConfigurationError.invalidHost("a b").description ==
            "the broker URL's host 'a b' is not a name, an IPv4 address or an [IPv6] address")
        #expect(PublishConfigurationError.invalidUser.description ==
            "the broker URL's user is empty or has a '%' not followed by two hex digits")
        #expect(PublishConfigurationError.invalidTopic(reason: "contains a NUL character").description ==
            "the broker URL's topic contains a NUL character")
    }

    @Test("given a topic with a query-like tail or a percent sign when parsed then it is taken as written")
    func literalTopic() throws {
        #expect(try BrokerURL(parsing: "mqtt://h/a%20b?c").topic == "a%20b?c")
    }
}
