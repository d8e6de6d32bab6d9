@testable import LocTrackWeb
import Testing

@Suite("Server-sent events: ids, encoding, the ring")
struct ServerSentEventTests {
    @Test("given one line of JSON when encoded then it is id, event, one data line and a blank line")
    func oneLine() {
        let event = ServerSentEvent(id: EventID(run: "5f3a9c", sequence: 1042), name: .fix, data: "{\"class\":\"TPV\"}")
        #expect(String(decoding: event.bytes, as: UTF8.self) == "id: 5f3a9c-1042\nevent: fix\ndata: {\"class\":\"TPV\"}\n\n")
    }

    @Test("given data with LF, CRLF and CR line breaks when encoded then each line is its own data field, none can end the event")
    func lineBreaks() {
        let event = ServerSentEvent(id: EventID(run: "a", sequence: 2), name: .status, data: "one\ntwo\r\nthree\rfour\n\nevent: x")
        #expect(String(decoding: event.bytes, as: UTF8.self)
            == "id: a-2\nevent: status\ndata: one\ndata: two\ndata: three\ndata: four\ndata: \ndata: event: x\n\n")
    }

    @Test("given empty data when encoded then there is one empty data line")
    func emptyData() {
        let event = ServerSentEvent(id: EventID(run: "a", sequence: 1), name: .reset, data: "")
        #expect(String(decoding: event.bytes, as: UTF8.self) == "id: a-1\nevent: reset\ndata: \n\n")
    }

    @Test("the keep-alive is a comment line")
    func keepAlive() {
        #expect(String(decoding: ServerSentEvent.keepAlive, as: UTF8.self) == ": keep-alive\n\n")
    }

    @Test("given RUN-N text when parsed then run and number come back and print the same")
    func parseID() throws {
        let id = try #require(EventID(parsing: "5f3a9c-1042"))
        #expect(id.run == "5f3a9c")
        #expect(id.sequence == 1042)
        #expect(id.description == "5f3a9c-1042")
        #expect(EventID(parsing: "0-0") == EventID(run: "0", sequence: 0))
        #expect(EventID(parsing: "ab-18446744073709551615") == nil)  // 20 digits
        #expect(EventID(parsing: "ab-1844674407370955161")?.sequence == 1_844_674_407_370_955_161)
    }

    @Test("given text that is not RUN-N when parsed then it is nil", arguments: [
        "", "-", "abc", "abc-", "-12", "ABC-1", "abc-+1", "abc- 1", "abc-1 ", "g1-2", "abc-1-2", String(repeating: "a", count: 33) + "-1",
    ])
    func rejectID(text: String) {
        #expect(EventID(parsing: text) == nil)
    }

    @Test("a new run is 8 lowercase hexadecimal digits, different each time")
    func newRun() {
        let runs = (0..<3).map { _ in EventID.newRun() }
        for run in runs {
            #expect(run.utf8.count == 8)
            #expect(EventID(parsing: run + "-1")?.run == run)
        }
        #expect(Set(runs).count == 3)
    }

    @Test("given a ring of 3 when 5 events are added then it holds 3 to 5 by number, and not 1, 2 or 6")
    func ring() {
        var ring = EventRing(capacity: 3)
        #expect(ring.firstSequence == 1)
        #expect(ring.lastSequence == 0)
        for value in UInt8(1)...5 { #expect(ring.append([value]) == UInt64(value)) }
        #expect(ring.count == 3)
        #expect(ring.firstSequence == 3)
        #expect((1...6).map { ring[UInt64($0)] } == [nil, nil, [3], [4], [5], nil])
        #expect(ring.contains(3) && !ring.contains(2))
    }
}
