import LocTrackWeb
import Testing

/// `/events`: where a stream starts, the stream as the body, and the limit.
@Suite struct EventsRouteTests {
    @Test func givenNeitherHeaderNorQueryWhenEventsIsOpenedThenItStartsWithTheNextEventAndTheBodyIsTheStream() async throws {
        let readings = ScriptedReadings(streamChunks: [Array("id: r-1\nevent: fix\ndata: {}\n\n".utf8)])
        let response = await Fixture.service(readings: readings).respond(to: .get("/events"))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.header("Cache-Control") == "no-store")
        #expect(readings.openedAfter == [nil])
        guard case .events(let stream) = response.body else {
            Issue.record("the body is not the event stream")
            return
        }
        var chunks: [[UInt8]] = []
        for await chunk in stream { chunks.append(chunk) }
        #expect(chunks == [Array("id: r-1\nevent: fix\ndata: {}\n\n".utf8)])
    }

    @Test func givenAfterInTheQueryWhenEventsIsOpenedThenTheStreamStartsAfterIt() async {
        let readings = ScriptedReadings()
        _ = await Fixture.service(readings: readings).respond(to: .get("/events", query: "after=5f3a9c-1042"))
        #expect(readings.openedAfter == ["5f3a9c-1042"])
    }

    @Test func givenLastEventIDAndAfterWhenEventsIsOpenedThenLastEventIDWins() async {
        let readings = ScriptedReadings()
        _ = await Fixture.service(readings: readings)
            .respond(to: .get("/events", query: "after=5f3a9c-1", headers: [("last-event-id", "5f3a9c-1042")]))
        #expect(readings.openedAfter == ["5f3a9c-1042"])
    }

    @Test func givenAnEmptyLastEventIDWhenEventsIsOpenedThenAfterIsUsed() async {
        let readings = ScriptedReadings()
        _ = await Fixture.service(readings: readings).respond(to: .get("/events", query: "after=a-7", headers: [("Last-Event-ID", "")]))
        #expect(readings.openedAfter == ["a-7"])
    }

    @Test func givenThePercentEncodedAfterWhenEventsIsOpenedThenTheLiveSideGetsItDecoded() async {
        let readings = ScriptedReadings()
        _ = await Fixture.service(readings: readings).respond(to: .get("/events", query: "after=a%2D7"))
        #expect(readings.openedAfter == ["a-7"])
    }

    @Test func givenMaxStreamsOpenWhenOneMoreIsOpenedThenItIs503WithRetryAfter() async {
        let response = await Fixture.service(readings: ScriptedReadings(streamChunks: nil)).respond(to: .get("/events"))
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "5")
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.text?.hasSuffix("\n") == true)
    }

    @Test func givenHEADWhenEventsIsAskedThenNoStreamIsOpenedAndNoBodySent() async {
        let readings = ScriptedReadings()
        let response = await Fixture.service(readings: readings).respond(to: WebRequest(method: "HEAD", path: "/events"))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.bytes == [])
        #expect(readings.openedAfter.isEmpty)
    }
}
