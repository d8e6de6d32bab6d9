import Synchronization
@testable import LocTrackTraccar
import Testing

/// The uplink as a program uses it: its own thread, libcurl, a loopback server. The full
/// end-to-end runs (a Traccar stand-in, gpsd, outages with a SIGKILL) are elsewhere; these
/// check that the thread, the wake-ups and the finish are wired.
@Suite("Traccar uplink: its thread over libcurl to a loopback server", .timeLimit(.minutes(1)))
struct TraccarUplinkTests {
    final class Statuses: Sendable {
        let entries = Mutex<[UplinkStatus]>([])
        func append(_ status: UplinkStatus) { entries.withLock { $0.append(status) } }
        var all: [UplinkStatus] { entries.withLock { $0 } }
    }

    static func configuration(port: Int, root: String) throws -> TraccarUplinkConfiguration {
        TraccarUplinkConfiguration(
            url: try TraccarURL(parsing: "http://127.0.0.1:\(port)/?id=car1"), spoolDirectory: root + "/spool",
            spoolLimitBytes: 1_000_000)
    }

    @Test("given a server that takes positions when three are published and the uplink finishes then the server has them in order and the spool is empty")
    func publishesInOrder() async throws {
        let server = try LoopbackHTTPServer(answering: [])
        defer { server.stop() }
        let root = try UplinkHarness.makeTemporaryRoot()
        defer { UplinkHarness.remove(root) }
        let statuses = Statuses()
        let uplink = try TraccarUplink(try Self.configuration(port: server.port, root: root)) { statuses.append($0) }
        #expect(uplink.publish([Array("id=car1&timestamp=1".utf8)]))
        #expect(uplink.publish([Array("id=car1&timestamp=2".utf8), Array("id=car1&timestamp=3".utf8)]))
        await uplink.finish(drainingFor: .seconds(20))
        #expect(server.heads.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) } == [
            "/?id=car1&timestamp=1", "/?id=car1&timestamp=2", "/?id=car1&timestamp=3",
        ])
        #expect(uplink.pendingCount == 0)
        #expect(server.acceptedConnections == 1)
        #expect(statuses.all.isEmpty)
    }

    @Test("given a server that does not know the device when positions are published and the uplink finishes promptly then it said so once and the positions stay in the spool")
    func unknownDeviceKeepsPositions() async throws {
        let server = try LoopbackHTTPServer(answering: Array(repeating: .status(400), count: 10))
        defer { server.stop() }
        let root = try UplinkHarness.makeTemporaryRoot()
        defer { UplinkHarness.remove(root) }
        let statuses = Statuses()
        let (said, saying) = AsyncStream.makeStream(of: UplinkStatus.self)
        let uplink = try TraccarUplink(try Self.configuration(port: server.port, root: root)) { status in
            statuses.append(status)
            saying.yield(status)
        }
        #expect(uplink.publish([Array("id=car1&timestamp=1".utf8), Array("id=car1&timestamp=2".utf8)]))
        // The refusal is said on the uplink's thread: wait for it (bounded by the time limit).
        var first: UplinkStatus?
        for await status in said {
            first = status
            break
        }
        #expect(first == .unknownDevice(deviceID: "car1", probeEvery: .seconds(30)))
        await uplink.finish(drainingFor: .seconds(2))
        saying.finish()
        #expect(statuses.all == [.unknownDevice(deviceID: "car1", probeEvery: .seconds(30))])
        #expect(uplink.pendingCount == 2)
        #expect(server.heads.count == 1)
    }
}
