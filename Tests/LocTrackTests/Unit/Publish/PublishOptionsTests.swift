import LocTrackFormats
import Glibc
import LocTrackMQTT
import Testing

@Suite("Publish options", .timeLimit(.minutes(1)))
struct PublishOptionsTests {
    static let broker = try! BrokerURL(parsing: "mqtt://broker.local/owntracks/alice/car")

    @Test("given only a broker when the options are made then every default is as documented")
    func defaults() {
        let options = PublishOptions(broker: Self.broker, hostName: "pi4")
        #expect(options.qos == 1)
        #expect(options.retain == false)
        #expect(options.clientID == "loctrack-pi4")
        #expect(options.caFile == nil)
        #expect(options.passwordFile == nil)
        #expect(options.spoolDirectory == nil)
        #expect(options.spoolLimitBytes == 100_000_000)
        #expect(options.tid == nil)
        #expect(OwnTracksEncoder.trackerID(given: options.tid) == OwnTracksEncoder.defaultTrackerID())
    }

    @Test("given host names when the defaults are derived then the client id uses the short name and the tid two letters or digits",
          arguments: [
              ("pi4", "loctrack-pi4", "pi"), ("Garage-Pi.example.org", "loctrack-Garage-Pi", "ga"),
              ("7-of-9", "loctrack-7-of-9", "7o"), ("x", "loctrack-x", "x"), ("", "loctrack-localhost", "lt"),
              ("--", "loctrack---", "lt"),
          ])
    func hostDefaults(host: String, clientID: String, tid: String) {
        #expect(PublishOptions.defaultClientID(hostName: host) == clientID)
        #expect(OwnTracksEncoder.defaultTrackerID(hostName: host) == tid)
    }

    @Test("given an explicit client id and tid when the options are made then they win over the host name")
    func explicitIDs() {
        let options = PublishOptions(broker: Self.broker, clientID: "car", tid: "ac", hostName: "pi4")
        #expect(options.clientID == "car")
        #expect(OwnTracksEncoder.trackerID(given: options.tid) == "ac")
    }

    @Test("given sizes when parsed then K, M and G are SI multiples and anything else is refused",
          arguments: [
              ("1", Int64?.some(1)), ("500K", 500_000), ("500k", 500_000), ("100M", 100_000_000),
              ("2G", 2_000_000_000), ("2g", 2_000_000_000), ("123456789", 123_456_789),
              ("0", nil), ("0K", nil), ("", nil), ("K", nil), ("1.5M", nil), ("-1", nil), ("+1", nil), ("10 M", nil),
              ("10MB", nil), ("10T", nil), ("9223372036854775807", Int64.max), ("9223372036854775807K", nil),
          ])
    func sizes(text: String, bytes: Int64?) {
        #expect(PublishOptions.byteCount(parsing: text) == bytes)
    }

    @Test("given values when checked then QoS, client ids and tids follow the documented rules")
    func validity() {
        #expect([0, 1, 2].allSatisfy(PublishOptions.isValidQoS))
        #expect(!PublishOptions.isValidQoS(3) && !PublishOptions.isValidQoS(-1))
        #expect(PublishOptions.isValidClientID("loctrack-pi4"))
        #expect(["", ".", "..", "a/b", "a\u{0}b"].allSatisfy { !PublishOptions.isValidClientID($0) })
        #expect(["a", "AB", "7x"].allSatisfy(PublishOptions.isValidTrackerID))
        #expect(["", "abc", "a-", "é"].allSatisfy { !PublishOptions.isValidTrackerID($0) })
    }

    @Test("given environments when the spool directory is resolved then --spool, XDG_STATE_HOME, HOME, then the password database decide")
    func spoolDirectory() throws {
        let options = PublishOptions(broker: Self.broker, clientID: "loctrack-pi4")
        #expect(try options.spoolDirectory(environment: ["XDG_STATE_HOME": "/var/state", "HOME": "/home/a"])
            == "/var/state/loctrack/spool/loctrack-pi4")
        #expect(try options.spoolDirectory(environment: ["XDG_STATE_HOME": "/var/state/"])
            == "/var/state/loctrack/spool/loctrack-pi4")
        #expect(try options.spoolDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/a"])
            == "/home/a/.local/state/loctrack/spool/loctrack-pi4")
        // Neither variable usable: the password database's home, as for the monitors (StateDirectoryTests).
        let home = String(cString: try #require(getpwuid(getuid())?.pointee.pw_dir))
        #expect(try options.spoolDirectory(environment: ["HOME": "relative"]) == home + "/.local/state/loctrack/spool/loctrack-pi4")
        var explicit = options
        explicit.spoolDirectory = "/srv/spool"
        #expect(try explicit.spoolDirectory(environment: [:]) == "/srv/spool")
    }

    @Test("given the variable and a password file when the password is read then the variable wins")
    func passwordPrecedence() throws {
        let path = try Self.temporaryFile("from-file\nsecond line\n")
        defer { unlink(path) }
        var options = PublishOptions(broker: Self.broker, passwordFile: path)
        #expect(try options.password(environment: ["LOCTRACK_MQTT_PASSWORD": "from-env"]) == "from-env")
        #expect(try options.password(environment: ["LOCTRACK_MQTT_PASSWORD": ""]) == "from-file")
        #expect(try options.password(environment: [:]) == "from-file")
        options.passwordFile = nil
        #expect(try options.password(environment: [:]) == nil)
    }

    @Test("given password files with CRLF, no newline or nothing when read then the first line is the password")
    func passwordLines() throws {
        for (text, password) in [("s3cret\r\nx", "s3cret"), ("no-newline", "no-newline"), ("", ""), ("\nlater", "")] {
            let path = try Self.temporaryFile(text)
            defer { unlink(path) }
            #expect(try PublishOptions(broker: Self.broker, passwordFile: path).password(environment: [:]) == password)
        }
    }

    @Test("given a password file that cannot be read when the password is read then the error names the file")
    func unreadablePasswordFile() {
        let options = PublishOptions(broker: Self.broker, passwordFile: "/nonexistent/loctrack-password")
        #expect(throws: PublishConfigurationError.unreadablePasswordFile(
            path: "/nonexistent/loctrack-password", reason: "No such file or directory")) {
            try options.password(environment: [:])
        }
        #expect(PublishConfigurationError.unreadablePasswordFile(path: "/p", reason: "Permission denied").description
            == "cannot read the password file '/p': Permission denied")
    }

    @Test("given a file reader when the password is read then it is asked for the --password-file path")
    func injectedReader() throws {
        let options = PublishOptions(broker: Self.broker, passwordFile: "/run/secrets/mqtt")
        #expect(try options.password(environment: [:], readFile: { "read:" + $0 + "\n" }) == "read:/run/secrets/mqtt")
    }

    /// A new file under /tmp holding `text`; the caller unlinks it.
    static func temporaryFile(_ text: String) throws -> String {
        var template = Array("/tmp/loctrack-password-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(descriptor >= 0)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        try #require(written == text.utf8.count)
        return path
    }
}
