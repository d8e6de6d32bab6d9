import LocTrackWeb
import Testing

@Suite struct WebRequestTests {
    @Test func headersAreFoundWhateverTheirCase() {
        let request = WebRequest(method: "GET", path: "/", headers: [(name: "Last-Event-ID", value: "a-1")])
        #expect(request.header("last-event-id") == "a-1")
        #expect(request.header("authorization") == nil)
    }
}
