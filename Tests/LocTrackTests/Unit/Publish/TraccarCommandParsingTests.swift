import Glibc
import LocTrack
@testable import LocTrackCLI
import LocTrackMQTT
import LocTrackSinks
import LocTrackTraccar
import Testing

/// `--publish http(s)://HOST:PORT/?id=DEVICE`: a Traccar server beside the brokers, with the
/// companions that apply to it, and one line for what does not.
@Suite("--publish to Traccar: command line parsing", .timeLimit(.minutes(1)))
struct TraccarCommandParsingTests {
    static func stream(_ words: [String]) throws(UsageError) -> Command.StreamOptions {
        guard case .stream(let options) = try Command(arguments: ["stream"] + words) else {
            throw UsageError.missingCommand
        }
        return options
    }

    @Test("given a Traccar URL with its companions and a broker when parsed then each gets its own, in order")
    func traccarBesideABroker() throws {
        let options = try Self.stream([
            "--publish", "https://traccar.example.org/?id=van-7", "--cafile", "/etc/ca.pem", "--spool", "/var/spool/tc",
            "--spool-limit", "50M", "--traccar-interval", "30", "--traccar-distance", "100",
            "--publish", "mqtt://pi.local/van", "--qos", "0",
        ])
        #expect(options.traccars == [
            TraccarOptions(
                url: try TraccarURL(parsing: "https://traccar.example.org/?id=van-7"), caFile: "/etc/ca.pem",
                spoolDirectory: "/var/spool/tc", spoolLimitBytes: 50_000_000, thinning: Thinning(interval: 30, distance: 100)),
        ])
        #expect(options.publishes.map(\.broker.host) == ["pi.local"])
        #expect(options.publishes.first?.qos == 0)
    }

    @Test("given a Traccar URL alone when its spool is resolved then it is traccar-DEVICE in loctrack's state folder")
    func defaultSpool() throws {
        let traccar = try #require(try Self.stream(["--publish", "http://h:5055/?id=car%201"]).traccars.first)
        #expect(traccar.url.deviceID == "car 1")
        #expect(traccar.spoolDirectory(environment: ["XDG_STATE_HOME": "/state"]) == "/state/loctrack/spool/traccar-car%201")
        #expect(traccar.spoolDirectory(environment: ["HOME": "/home/a"]) == "/home/a/.local/state/loctrack/spool/traccar-car%201")
        let home = String(cString: try #require(getpwuid(getuid())?.pointee.pw_dir))
        #expect(traccar.spoolDirectory(environment: [:]) == home + "/.local/state/loctrack/spool/traccar-car%201")
        #expect(traccar.thinning.sendsEveryFix)
    }

    @Test("given options of the wrong kind of server when parsed then one line names the option and the URL it needs",
          arguments: [
            (["--publish", "http://h:5055/?id=a", "--qos", "1"], "--qos needs an mqtt:// or mqtts:// URL in --publish (a broker)"),
            (["--publish", "http://h:5055/?id=a", "--ha-discovery"],
             "--ha-discovery needs an mqtt:// or mqtts:// URL in --publish (a broker)"),
            (["--publish", "mqtt://h/t", "--traccar-interval", "5"],
             "--traccar-interval needs an http:// or https:// URL in --publish (a Traccar server)"),
            (["--publish", "http://h:5055/?id=a", "--cafile", "/ca.pem"],
             "--cafile needs an https:// URL in --publish (it is the CA for TLS)"),
            (["--publish", "http://h:5055/?id=a", "--spool", "/s", "--publish", "http://g:5055/?id=b", "--spool", "/s"],
             "two --publish use the spool /s: give each its own --spool or --client-id"),
          ])
    func wrongCompanions(words: [String], line: String) {
        #expect(throws: UsageError.self) { try Self.stream(words) }
        do {
            _ = try Self.stream(words)
        } catch {
            #expect(error.description == line)
        }
    }

    @Test("given URLs Traccar cannot take when parsed then each is a usage error naming what is wrong",
          arguments: ["http://h:5055/", "http://h:5055/?id=", "http://:5055/?id=a", "http://h:99999/?id=a", "ftp://h/?id=a"])
    func badURLs(url: String) {
        do {
            _ = try Self.stream(["--publish", url])
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.description.hasPrefix("--publish: "), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }
}
