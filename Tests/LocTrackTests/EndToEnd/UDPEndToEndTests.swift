import Foundation
import Glibc
import LocTrack
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// `--publish udp://` against real listeners: a second, real gpsd that reads loctrack's
    /// NMEA 0183 from UDP (`gpsd -n udp://…`, as it reads a WiFi NMEA gateway) and reports it
    /// to `gpspipe -w`, and a plain UDP socket that reads `--format json` datagrams.
    @Suite("UDP: NMEA 0183 and JSON datagrams to real listeners", .serialized, .timeLimit(.minutes(1)))
    struct UDP {
        /// A fix's time and position, from a TPV line (loctrack's or gpsd's).
        struct Position: CustomStringConvertible {
            var time: Timestamp
            var latitude: Double
            var longitude: Double

            init?(tpv line: String) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["class"] as? String == "TPV", (object["mode"] as? Int ?? 0) >= 2,
                      let text = object["time"] as? String, let time = Timestamp(iso8601: text),
                      let latitude = object["lat"] as? Double, let longitude = object["lon"] as? Double
                else { return nil }
                (self.time, self.latitude, self.longitude) = (time, latitude, longitude)
            }

            var description: String { "\(time) \(latitude) \(longitude)" }
        }

        /// NMEA's 5 decimals of a minute: half a unit is 1/12,000,000 of a degree (8 mm); a
        /// little more for the doubles on both sides.
        static let nmeaPrecision = 0.5e-5 / 60 + 1e-9

        @Test("given a real gpsd reading udp:// when loctrack streams to it, to a closed port and to a file then gpsd reports every position loctrack sent, to NMEA's precision, and the file has every fix")
        func realGPSDReadsTheNMEA() async throws {
            let folder = try TrackFiles.temporaryFolder("udp")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let nmeaPort = try UDPListener.freePort(), closedPort = try UDPListener.freePort()
            let (listener, controlPort) = try Loopback.listen()
            close(listener)
            let reader = try ChildProcess(
                executable: "/usr/sbin/gpsd", arguments: ["gpsd", "-N", "-n", "-S", "\(controlPort)", "udp://127.0.0.1:\(nmeaPort)"],
                stdin: .null, stdout: .null, stderr: .pipe)
            defer { reader.stop() }
            try await waitUntil(timeout: .seconds(10), "the reading gpsd to listen: \(reader.stderr?.text ?? "")") {
                Loopback.canConnect(port: controlPort)
            }
            let pipe = try ChildProcess(
                executable: "/usr/bin/gpspipe", arguments: ["gpspipe", "-w", "127.0.0.1:\(controlPort)"],
                stdin: .null, stdout: .pipe, stderr: .pipe)
            defer { pipe.stop() }
            try await waitUntil(timeout: .seconds(10), "gpspipe's WATCH: \(pipe.stdout?.text ?? "")") {
                pipe.stdout?.text.contains(#""class":"WATCH""#) == true
            }
            try await withGPSFake(NMEALog.walk(epochs: 12)) { fake in
                let streaming = try LoctrackProcess.start([
                    "stream", "--no-reconnect", "--publish", "udp://127.0.0.1:\(closedPort)",
                    "--publish", "udp://127.0.0.1:\(nmeaPort)", "-o", folder + "/track.json", fake.sourceArgument,
                ])
                let plain = try LoctrackProcess.start(["stream", "--no-reconnect", "--format", "json", fake.sourceArgument])
                try await fake.waitForWatchers(2)
                try await fake.endLogs()
                let result = try await streaming.result()
                let printed = try await plain.result().stdout

                #expect(result.status == .exited(69), "gpsd's end with --no-reconnect: \(result)")
                #expect(!result.stderr.contains("udp://"), "a closed port says nothing: \(result)")
                #expect(TrackFiles.text(folder + "/track.json") == printed, "the file beside the UDP sinks has every fix")
                let sent = printed.completeLines.compactMap(Position.init(tpv:))
                #expect(sent.count == 12)
                var reported: [Int64: Position] = [:]
                try await waitUntil(timeout: .seconds(10), "gpsd to report \(sent.count) positions:\n\(pipe.stdout?.text ?? "")") {
                    // gpspipe ends its lines with CR LF, one Character in Swift: split on either.
                    for line in (pipe.stdout?.text ?? "").split(whereSeparator: \.isNewline).map(String.init) {
                        if let position = Position(tpv: line) { reported[position.time.seconds] = position }
                    }
                    return sent.allSatisfy { reported[$0.time.seconds] != nil }
                }
                for position in sent {
                    let heard = try #require(reported[position.time.seconds])
                    #expect(abs(heard.latitude - position.latitude) <= Self.nmeaPrecision, "\(heard) for \(position)")
                    #expect(abs(heard.longitude - position.longitude) <= Self.nmeaPrecision, "\(heard) for \(position)")
                }
            }
        }

        @Test("given --format json when streaming to a UDP socket then each datagram is one TPV line, loctrack's own")
        func jsonDatagrams() async throws {
            let socket = try UDPListener()
            try await withGPSFake(NMEALog.walk(epochs: 8)) { fake in
                let streaming = try LoctrackProcess.start([
                    "stream", "--no-reconnect", "--format", "json", "--publish", "udp://127.0.0.1:\(socket.port)",
                    fake.sourceArgument,
                ])
                let plain = try LoctrackProcess.start(["stream", "--no-reconnect", "--format", "json", fake.sourceArgument])
                try await fake.waitForWatchers(2)
                try await fake.endLogs()
                let result = try await streaming.result()
                let printed = try await plain.result().stdout.completeLines

                #expect(result.status == .exited(69), "\(result)")
                #expect(result.stdout.isEmpty, "a --publish takes stdout's place: \(result)")
                try await waitUntil(timeout: .seconds(5), "8 datagrams") { socket.datagrams.count >= 8 }
                let datagrams = socket.datagrams.map { String(decoding: $0, as: UTF8.self) }
                #expect(datagrams == printed.map { $0 + "\n" })
                #expect(datagrams.allSatisfy { Position(tpv: $0) != nil && $0.filter { $0 == "\n" }.count == 1 })
            }
        }

        @Test("given monitor run with a UDP listener beside a file when it runs then the listener gets each fix as NMEA, RMC then GGA, though the sinks' lines are JSON")
        func monitorRunSendsNMEA() async throws {
            let home = try StateHome()
            let socket = try UDPListener()
            let file = home.path + "/events.json"
            try await withGPSFake(NMEALog.walk(epochs: 6)) { fake in
                let result = try await fake.run(
                    ["monitor", "run", "--no-reconnect", "--publish", "udp://127.0.0.1:\(socket.port)", "--output", file],
                    start: home.start)
                #expect(result.status == .exited(69), "\(result)")
                try await waitUntil(timeout: .seconds(5), "12 datagrams") { socket.datagrams.count >= 12 }
                let sentences = socket.datagrams.map { String(decoding: $0, as: UTF8.self) }
                #expect(sentences.count == 12)
                #expect(sentences.enumerated().allSatisfy { index, sentence in
                    sentence.hasPrefix(index % 2 == 0 ? "$GPRMC," : "$GPGGA,") && sentence.hasSuffix("\r\n")
                }, "\(sentences)")
            }
        }
    }
}
