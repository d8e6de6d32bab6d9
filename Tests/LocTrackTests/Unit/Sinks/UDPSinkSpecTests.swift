import LocTrack
@testable import LocTrackCLI
import LocTrackFormats
import LocTrackProcess
import LocTrackMQTT
import LocTrackSinks
import Testing

/// `--publish udp://HOST[:PORT]` parsed into its spec, and what it refuses.
@Suite("--publish udp:// parsing", .timeLimit(.minutes(1)))
struct UDPSinkSpecTests {
    @Test("given udp:// URLs when parsed then host and port are taken, 10110 by default, IPv6 in brackets", arguments: [
        ("udp://192.168.1.255:2000", "192.168.1.255", 2000),
        ("udp://plotter.local", "plotter.local", 10110),
        ("udp://[::1]:10111", "::1", 10111),
        ("udp://[fe80::1]", "fe80::1", 10110),
    ] as [(String, String, Int)])
    func parses(url: String, host: String, port: Int) throws {
        let spec = try UDPSinkSpec(parsing: url)
        #expect(spec.host == host)
        #expect(Int(spec.port) == port)
    }

    @Test("given bad udp:// URLs when parsed then each is one line saying what is wrong", arguments: [
        ("udp://", "a udp:// URL needs a host: udp://HOST[:PORT]"),
        ("udp://h:0", "the port must be a number from 1 to 65535, not '0'"),
        ("udp://h:70000", "the port must be a number from 1 to 65535, not '70000'"),
        ("udp://h:x", "the port must be a number from 1 to 65535, not 'x'"),
        ("udp://h/path", "a udp:// URL is udp://HOST or udp://HOST:PORT, with no user, path or query"),
        ("udp://[::1", "an IPv6 address needs its ']'"),
    ])
    func refuses(url: String, reason: String) {
        #expect(throws: SinkURLError(reason)) { try UDPSinkSpec(parsing: url) }
        #expect(throws: UsageError.invalidBrokerURL(reason: reason)) { try Command(arguments: ["stream", "--publish", url]) }
    }

    @Test("given several udp:// beside a file and a broker when parsed then each is its own sink, in order, and a companion after a udp:// is refused")
    func severalBesideOthers() throws {
        let parsed = try Command(arguments: [
            "stream", "--publish", "udp://10.0.0.5", "--publish", "mqtt://h/t", "--qos", "1", "--publish", "udp://10.0.0.6:2000",
            "-o", "t.json",
        ])
        guard case .stream(let options) = parsed else {
            Issue.record("not stream")
            return
        }
        #expect(options.udps == [UDPSinkSpec(host: "10.0.0.5"), UDPSinkSpec(host: "10.0.0.6", port: 2000)])
        #expect(options.publishes.map(\.qos) == [1])
        #expect(options.sinks.count == 4)
        #expect(throws: UsageError.needs("--qos", what: "an mqtt://, mqtts://, http:// or https:// URL in --publish")) {
            try Command(arguments: ["stream", "--publish", "udp://10.0.0.5", "--qos", "1"])
        }
        #expect(throws: UsageError.needs("--spool", what: "an mqtt://, mqtts://, http:// or https:// URL in --publish")) {
            try Command(arguments: ["monitor", "run", "--publish", "udp://10.0.0.5", "--spool", "/s"])
        }
    }

    @Test("given a host that does not resolve when the sink starts then it is one line and exit 69")
    func unresolvableHost() {
        do {
            _ = try UDPSinkSpec(host: "no-such-host.invalid").start(.forDoubles())
            Issue.record("started")
        } catch {
            // The resolver's own reason follows: "Name or service not known" with a DNS server,
            // "Temporary failure in name resolution" without one (the trixie root's namespace).
            #expect(error.description.hasPrefix("--publish udp://no-such-host.invalid:10110: cannot resolve no-such-host.invalid: "))
            #expect(!error.description.contains("\n"))
            #expect(error.exitCode == .unavailable)
        }
    }
}
