import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing
@testable import LocTrackServe

/// The channel handlers on NIO's EmbeddedChannel, whose clock only moves when told.
@Suite("The connection handlers")
struct ConnectionHandlerTests {
    private func connected(_ handler: some ChannelHandler) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8947)).wait()
        return channel
    }

    private static let eventStreamHead = HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]))

    // MARK: StalledReaderCloser

    @Test("a channel unwritable for the whole limit is closed, not a moment before")
    func stalledReaderClosed() throws {
        let channel = try connected(StalledReaderCloser(limit: .seconds(10)))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("a client that reads again in time keeps its connection")
    func readerResumes() throws {
        let channel = try connected(StalledReaderCloser(limit: .seconds(10)))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        // A new stall starts a new count.
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    // MARK: EventStreamHangUp

    @Test("the client's FIN during an event stream closes the connection")
    func hangUpDuringStream() throws {
        let channel = try connected(EventStreamHangUp())
        try channel.writeOutbound(Self.eventStreamHead)
        #expect(channel.isActive)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!channel.isActive)
    }

    @Test("a FIN before the stream's head: the connection closes once the head is written")
    func hangUpBeforeStream() throws {
        let channel = try connected(EventStreamHangUp())
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(channel.isActive)
        _ = try? channel.writeOutbound(Self.eventStreamHead)
        #expect(!channel.isActive)
    }

    @Test("a FIN during any other answer, or after a stream ended, leaves the connection open")
    func otherAnswers() throws {
        let channel = try connected(EventStreamHangUp())
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentType: "application/gpx+xml"])))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(channel.isActive)

        let second = try connected(EventStreamHangUp())
        try second.writeOutbound(Self.eventStreamHead)
        try second.writeOutbound(HTTPResponsePart.end(nil))
        second.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(second.isActive)
    }

    // MARK: OversizedHeadResponder

    @Test("a head over the limit gets 431 with a one-line reason, then the connection closes")
    func oversizedHead() throws {
        let channel = try connected(OversizedHeadResponder())
        channel.pipeline.fireErrorCaught(HTTPParserError.headerOverflow)
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no head written")
            return
        }
        #expect(head.status.code == 431)
        #expect(head.headerFields[.contentType] == "text/plain; charset=utf-8")
        #expect(head.headerFields[.connection] == "close")
        guard case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no body written")
            return
        }
        #expect(String(buffer: body) == "request head too large\n")
        #expect(head.headerFields[.contentLength] == String(body.readableBytes))
        guard case .end = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no end written")
            return
        }
        // The server's side ends now; the whole connection after the lingering time.
        channel.embeddedEventLoop.advanceTime(by: ConnectionClosing.lingering)
        #expect(!channel.isActive)
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
    }

    @Test("an overflow while an earlier answer is still being written only closes")
    func oversizedHeadDuringAnswer() throws {
        let channel = try connected(OversizedHeadResponder())
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/events")))
        _ = try channel.readInbound(as: HTTPRequestPart.self)
        try channel.writeOutbound(Self.eventStreamHead)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        channel.pipeline.fireErrorCaught(HTTPParserError.headerOverflow)
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(!channel.isActive)
    }

    @Test("every other decoder error goes on to Hummingbird (its 400)")
    func otherErrors() throws {
        let channel = try connected(OversizedHeadResponder())
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidMethod)
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(channel.isActive)
        #expect(throws: HTTPParserError.invalidMethod) { try channel.throwIfErrorCaught() }
    }
}
