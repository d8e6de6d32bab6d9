import HTTPTypes
import LocTrackWeb
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing
@testable import LocTrackServe

/// Tiles answered on the event loop (``TileFastPath``), on NIO's EmbeddedChannel, with a
/// scripted route: at once, or later, as a chart reader thread would.
@Suite("Tiles on the event loop")
struct TileFastPathTests {
    /// The route: every tile path gets its path's bytes; with `later`, the answers wait until released.
    private final class ScriptedTiles: Sendable {
        let later: Bool
        private let waiting = Mutex<[@Sendable () -> Void]>([])
        let asked = Mutex<[String]>([])

        init(later: Bool = false) { self.later = later }

        func respond(_ request: WebRequest, _ deliver: @escaping @Sendable (WebResponse) -> Void) -> Bool {
            guard request.path.hasPrefix("/tiles/") else { return false }
            asked.withLock { $0.append(request.path) }
            let response = WebResponse(status: 200, headers: [("Content-Type", "image/png")], body: .bytes(Array(request.path.utf8)))
            if later { waiting.withLock { $0.append { deliver(response) } } } else { deliver(response) }
            return true
        }

        func release() {
            let answers = waiting.withLock { answers in
                defer { answers = [] }
                return answers
            }
            for answer in answers { answer() }
        }
    }

    private func channel(_ tiles: ScriptedTiles) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: TileFastPath(respond: tiles.respond))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8947)).wait()
        return channel
    }

    private func request(_ path: String, method: HTTPRequest.Method = .get, fields: HTTPFields = [:]) -> [HTTPRequestPart] {
        [.head(HTTPRequest(method: method, scheme: nil, authority: "h", path: path, headerFields: fields)), .end(nil)]
    }

    private func send(_ parts: [HTTPRequestPart], to channel: EmbeddedChannel) throws {
        for part in parts { try channel.writeInbound(part) }
    }

    /// The answer written: status, Content-Length and body.
    private func answer(_ channel: EmbeddedChannel) throws -> (status: Int, length: String?, body: String)? {
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        var body = ""
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .body(let buffer): body += String(buffer: buffer)
            case .end: return (head.status.code, head.headerFields[.contentLength], body)
            case .head: Issue.record("a second head")
            }
        }
        Issue.record("no end")
        return nil
    }

    /// What went on to Hummingbird: the paths of the heads.
    private func handedOn(_ channel: EmbeddedChannel) throws -> [String] {
        var paths: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let head) = part { paths.append(head.path ?? "") }
        }
        return paths
    }

    @Test("a tile is answered on the loop with its length, and nothing goes on")
    func tileAnsweredHere() throws {
        let channel = try channel(ScriptedTiles())
        try send(request("/tiles/1/2/3/4.png"), to: channel)
        let answer = try #require(try answer(channel))
        #expect(answer.status == 200 && answer.length == "18" && answer.body == "/tiles/1/2/3/4.png")
        #expect(try handedOn(channel) == [])
    }

    @Test("any other request, a tile with a body, a POST or Connection: close goes on to Hummingbird")
    func othersGoOn() throws {
        let tiles = ScriptedTiles()
        let channel = try channel(tiles)
        try send(request("/api/status"), to: channel)
        try send(request("/tiles/1/0/0/0.png", method: .post), to: channel)
        #expect(try handedOn(channel) == ["/api/status", "/tiles/1/0/0/0.png"])
        for _ in 0..<2 { try channel.writeOutbound(HTTPResponsePart.end(nil)) }
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        try send(request("/tiles/1/0/0/0.png", fields: [.connection: "close"]), to: channel)
        try send(request("/tiles/1/0/0/0.png", fields: [.contentLength: "3"]), to: channel)
        #expect(try handedOn(channel) == ["/tiles/1/0/0/0.png", "/tiles/1/0/0/0.png"])
        #expect(tiles.asked.withLock { $0 } == [])
    }

    @Test("a tile behind a request Hummingbird still answers goes on too, so answers keep their order")
    func orderKept() throws {
        let tiles = ScriptedTiles()
        let channel = try channel(tiles)
        try send(request("/api/track"), to: channel)
        try send(request("/tiles/1/0/0/0.png"), to: channel)
        #expect(try handedOn(channel) == ["/api/track", "/tiles/1/0/0/0.png"])
        // Both answers end; the next tile is answered here.
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        try send(request("/tiles/1/1/1/1.png"), to: channel)
        #expect(try answer(channel)?.body == "/tiles/1/1/1/1.png")
        #expect(try handedOn(channel) == [])
    }

    @Test("while a tile is read, what comes next waits and reading stops; then it is taken in order")
    func heldWhileReading() throws {
        let tiles = ScriptedTiles(later: true)
        let channel = try channel(tiles)
        try send(request("/tiles/1/0/0/0.png"), to: channel)
        try send(request("/api/fix"), to: channel)
        try send(request("/tiles/1/1/0/0.png"), to: channel)
        #expect(try handedOn(channel) == [])
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        tiles.release()
        #expect(try answer(channel)?.body == "/tiles/1/0/0/0.png")
        // /api/fix went on; the tile behind it goes on as well (it waits behind /api/fix's answer).
        #expect(try handedOn(channel) == ["/api/fix", "/tiles/1/1/0/0.png"])
        #expect(tiles.asked.withLock { $0 } == ["/tiles/1/0/0/0.png"])
    }

    @Test("HEAD gets the head with GET's length and no body")
    func headHasNoBody() throws {
        let channel = EmbeddedChannel(handler: TileFastPath { request, deliver in
            deliver(WebResponse(status: 200, headers: [("Content-Length", "5")], body: .bytes([])))
            return true
        })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8947)).wait()
        try send(request("/tiles/1/0/0/0.png", method: .head), to: channel)
        let answer = try #require(try answer(channel))
        #expect(answer.status == 200 && answer.length == "5" && answer.body == "")
    }
}
