import LocTrackSystem
import LocTrackTestSupport
@testable import LocTrackTraccar
import Testing

@Suite("Curl transport: one loopback request at a time through libcurl", .timeLimit(.minutes(1)))
struct CurlTransportTests {
    static func transport(port: Int, stop: StopDeadline = StopDeadline()) throws -> CurlTransport {
        var configuration = TraccarUplinkConfiguration(
            url: try TraccarURL(parsing: "http://127.0.0.1:\(port)/?id=car1&key=k"), spoolDirectory: "/nonexistent",
            spoolLimitBytes: 1000, userAgent: "loctrack-test")
        configuration.connectTimeout = .seconds(5)
        return try CurlTransport(library: try CurlLibrary.shared(), configuration: configuration, stopDeadline: stop)
    }

    @Test("given a server that answers 200, 400 and 503 when three positions are sent then each status comes back, over one kept-alive connection, as plain GETs")
    func statusesOverOneConnection() throws {
        let server = try LoopbackHTTPServer(answering: [.status(200), .status(400), .status(503)])
        defer { server.stop() }
        let transport = try Self.transport(port: server.port)
        let outcomes = ["id=car1&timestamp=1", "id=car1&timestamp=2", "id=car1&timestamp=3"].map {
            transport.send(query: Array($0.utf8))
        }
        #expect(outcomes == [.reply(status: 200), .reply(status: 400), .reply(status: 503)])
        #expect(server.acceptedConnections == 1)
        let heads = server.heads
        #expect(heads.map { $0.split(separator: "\r\n").first.map(String.init) } == [
            "GET /?key=k&id=car1&timestamp=1 HTTP/1.1", "GET /?key=k&id=car1&timestamp=2 HTTP/1.1",
            "GET /?key=k&id=car1&timestamp=3 HTTP/1.1",
        ])
        let first = heads.first ?? ""
        #expect(first.contains("\r\nUser-Agent: loctrack-test"))
        #expect(!first.lowercased().contains("expect:"))
        #expect(!first.lowercased().contains("content-type:"))
    }

    @Test("given a server that closes without a reply when a position is sent then the failure says the server may have it, and the next request reconnects")
    func closeWithoutReply() throws {
        let server = try LoopbackHTTPServer(answering: [.closeWithoutReply, .status(200)])
        defer { server.stop() }
        let transport = try Self.transport(port: server.port)
        let failed = transport.send(query: Array("id=car1&timestamp=1".utf8))
        guard case .failed(let failure) = failed else {
            Issue.record("expected a failure, got \(failed)")
            return
        }
        #expect(failure.kind == .noReply)
        #expect(failure.reason.lowercased().contains("empty reply"))
        #expect(transport.send(query: Array("id=car1&timestamp=1".utf8)) == .reply(status: 200))
        #expect(server.acceptedConnections == 2)
    }

    @Test("given nothing listening when a position is sent then the failure says the request never left")
    func refused() throws {
        let refusing = try Loopback.RefusingPort()
        defer { withExtendedLifetime(refusing) {} }  // the port refuses until the test ends
        let outcome = try Self.transport(port: refusing.port).send(query: Array("id=car1".utf8))
        guard case .failed(let failure) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(failure.kind == .notSent)
        #expect(failure.reason.contains("127.0.0.1"))
    }

    @Test("given a server that never answers when the stop deadline passes then the request is cut short")
    func stopCutsARequestShort() throws {
        let server = try LoopbackHTTPServer(answering: [.silence])
        defer { server.stop() }
        let stop = StopDeadline()
        stop.set(Monotonic.milliseconds + 300)
        let outcome = try Self.transport(port: server.port, stop: stop).send(query: Array("id=car1".utf8))
        #expect(outcome == .failed(HTTPFailure(.noReply, reason: "the uplink is stopping")))
    }
}
