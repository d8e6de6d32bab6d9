import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import LocTrackServe

/// The connection limit on NIO's EmbeddedChannel: the gate on a listening channel, the
/// reporter on each connection, the registry between them (Support/ListeningDouble.swift).
@Suite("The connection limit")
struct ConnectionLimitTests {
    @Test("given room, when clients connect, then each connection is passed on and accepting goes on")
    func room() throws {
        let listening = try ListeningDouble(capacity: 2)
        #expect(listening.reads == 1)  // the gate, once in place, asks for the first accept
        #expect(try listening.accept().passedOn)
        listening.askToAccept()
        #expect(try listening.accept().passedOn)
        #expect(listening.reads == 2)
        #expect(listening.registry.count == 2)
    }

    @Test("given a full server of connections waiting past the grace, when a client connects, then the oldest is closed in its place")
    func oldestClosed() throws {
        let listening = try ListeningDouble(capacity: 2)
        let (first, _) = try listening.accept()
        let (second, _) = try listening.accept()
        listening.advance(by: .seconds(2))
        let reads = listening.reads
        listening.askToAccept()
        #expect(listening.reads == reads + 1)
        let (newcomer, passedOn) = try listening.accept()
        #expect(passedOn && newcomer.isActive)
        #expect(!first.isActive)
        #expect(second.isActive)
        #expect(listening.registry.count == 2)
    }

    @Test("given a full server whose connections have just come, then accepting pauses until the oldest has waited the grace")
    func pausesForTheGrace() throws {
        let listening = try ListeningDouble(capacity: 2)
        try listening.accept()
        listening.advance(by: .milliseconds(300))
        try listening.accept()
        let reads = listening.reads
        listening.askToAccept()
        #expect(listening.reads == reads)
        listening.advance(by: .milliseconds(699))
        #expect(listening.reads == reads)
        listening.advance(by: .milliseconds(1))
        #expect(listening.reads == reads + 1)
    }

    @Test("given a paused acceptor, when a connection closes, then the next accept goes through at once")
    func closeResumes() throws {
        let listening = try ListeningDouble(capacity: 2)
        try listening.accept()
        let (second, _) = try listening.accept()
        listening.askToAccept()
        let reads = listening.reads
        try second.clientCloses()
        #expect(listening.reads == reads + 1)
        #expect(listening.registry.count == 1)
        #expect(try listening.accept().passedOn)
    }

    @Test("given every connection being answered, then none is closed for a newcomer, which is refused if it gets in")
    func busyKept() throws {
        let listening = try ListeningDouble(capacity: 1)
        let (stream, _) = try listening.accept()
        try stream.receiveHead("/events")
        listening.advance(by: .seconds(60))
        let reads = listening.reads
        listening.askToAccept()
        listening.advance(by: .seconds(60))
        #expect(listening.reads == reads)  // no timer: only a close or an answer's end helps
        // One that got in all the same (the roster changed after the accept was decided).
        let (newcomer, passedOn) = try listening.accept()
        #expect(!passedOn && !newcomer.isActive)
        #expect(stream.isActive)
        #expect(listening.registry.count == 1)
    }

    @Test("given a paused acceptor and every connection busy, when an answer ends, then that connection gives way after its grace")
    func answerEndStartsTheGrace() throws {
        let listening = try ListeningDouble(capacity: 1)
        let (keptAlive, _) = try listening.accept()
        try keptAlive.receiveHead()
        let reads = listening.reads
        listening.askToAccept()
        try keptAlive.answer()
        #expect(listening.reads == reads)
        listening.advance(by: .milliseconds(999))
        #expect(listening.reads == reads)
        listening.advance(by: .milliseconds(1))
        #expect(listening.reads == reads + 1)
        let (newcomer, passedOn) = try listening.accept()
        #expect(passedOn && newcomer.isActive)
        #expect(!keptAlive.isActive)
    }

    @Test("given pipelined requests, then the connection stays busy until the last answer is out")
    func pipelined() throws {
        let listening = try ListeningDouble(capacity: 1)
        let (connection, _) = try listening.accept()
        try connection.receiveHead("/api/status")
        try connection.receiveHead("/api/track")
        try connection.answer()
        listening.advance(by: .seconds(5))
        #expect(try !listening.accept().passedOn)
        try connection.answer()
        listening.advance(by: .seconds(1))
        #expect(try listening.accept().passedOn)
        #expect(!connection.isActive)
    }

    @Test("given an answer's end queued but not yet out (the client does not read), then the connection stays busy")
    func endNotYetOut() throws {
        let listening = try ListeningDouble(capacity: 1)
        let (connection, _) = try listening.accept()
        try connection.receiveHead()
        try connection.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        connection.write(HTTPResponsePart.end(nil), promise: nil)  // not flushed
        listening.advance(by: .seconds(5))
        #expect(try !listening.accept().passedOn)
        connection.flush()
        listening.advance(by: .seconds(1))
        #expect(try listening.accept().passedOn)
    }

    @Test("an end with no head before it (the 431 of an oversized head) leaves the connection waiting")
    func endWithoutHead() throws {
        let listening = try ListeningDouble(capacity: 1)
        let (connection, _) = try listening.accept()
        try connection.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .requestHeaderFieldsTooLarge)))
        try connection.writeOutbound(HTTPResponsePart.end(nil))
        try connection.receiveHead()  // a head after it still makes it busy
        listening.advance(by: .seconds(5))
        #expect(try !listening.accept().passedOn)
    }

    @Test("Hummingbird's delegate holds accepting back until a gate is on the listening channel, and after it is gone")
    func heldUntilTheGate() throws {
        let registry = ConnectionRegistry(capacity: 1, grace: .seconds(1), now: { ContinuousClock.now })
        let delegate = GatedAccepting(registry: registry)
        #expect(!delegate.isAcceptingNewConnections())
        let channel = EmbeddedChannel()
        let gate = ConnectionGate(registry: registry)
        try channel.pipeline.syncOperations.addHandler(gate)
        #expect(delegate.isAcceptingNewConnections())
        try channel.pipeline.syncOperations.removeHandler(gate).wait()
        #expect(!delegate.isAcceptingNewConnections())
    }
}
