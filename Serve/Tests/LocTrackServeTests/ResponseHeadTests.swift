import HTTPTypes
import LocTrackWeb
import Testing
@testable import LocTrackServe

@Suite("The status line and fields sent for a WebResponse")
struct ResponseHeadTests {
    @Test("a whole body: the routes' fields in order, then its Content-Length")
    func wholeBody() {
        let response = WebResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: .bytes(Array(#"{"class":"TPV"}"#.utf8)))
        let head = response.head(method: .get)
        #expect(head.status.code == 200)
        #expect(head.headerFields.map(\.name.rawName) == ["Content-Type", "Cache-Control", "Content-Length"])
        #expect(head.headerFields[.contentLength] == "15")
    }

    @Test("a Content-Length from the routes is replaced by the body's for GET")
    func lengthFromTheBody() {
        let response = WebResponse(status: 200, headers: [("Content-Length", "99")], body: .bytes([1, 2, 3]))
        #expect(response.head(method: .get).headerFields[.contentLength] == "3")
    }

    @Test("HEAD: the routes' Content-Length is kept, else the length of the body they gave")
    func headLength() {
        let announced = WebResponse(status: 200, headers: [("Content-Length", "5120")], body: .bytes([]))
        #expect(announced.head(method: .head).headerFields[.contentLength] == "5120")
        let whole = WebResponse(status: 200, body: .bytes(Array(repeating: 0, count: 42)))
        #expect(whole.head(method: .head).headerFields[.contentLength] == "42")
    }

    @Test("204 and 304 have no Content-Length", arguments: [204, 304])
    func noBodyStatuses(status: Int) {
        let head = WebResponse(status: status).head(method: .get)
        #expect(head.status.code == status)
        #expect(head.headerFields[.contentLength] == nil)
    }

    @Test("an event stream: no Content-Length (chunked), text/event-stream, no-store")
    func eventStream() {
        let stream = EventStream(next: { nil }, cancel: {})
        let response = WebResponse(status: 200, headers: [("X-Content-Type-Options", "nosniff")], body: .events(stream))
        let head = response.head(method: .get)
        #expect(head.headerFields[.contentLength] == nil)
        #expect(head.headerFields[.contentType] == "text/event-stream")
        #expect(head.headerFields[.cacheControl] == "no-store")
        #expect(head.headerFields[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
    }

    @Test("the routes' own Content-Type and Cache-Control for a stream are kept")
    func eventStreamOwnFields() {
        let stream = EventStream(next: { nil }, cancel: {})
        let response = WebResponse(
            status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache")],
            body: .events(stream))
        let head = response.head(method: .get)
        #expect(head.headerFields[.contentType] == "text/event-stream; charset=utf-8")
        #expect(head.headerFields[.cacheControl] == "no-cache")
    }

    @Test("a field name HTTP does not allow is left out, the others are sent")
    func invalidFieldName() {
        let response = WebResponse(status: 404, headers: [("Bad Name", "x"), ("Content-Type", "text/plain")], body: .bytes([]))
        #expect(response.head(method: .get).headerFields.map(\.name.rawName) == ["Content-Type", "Content-Length"])
    }

    @Test("a status outside 100...999 becomes 500 instead of a trap", arguments: [0, 99, 1000, -1])
    func statusOutOfRange(status: Int) {
        #expect(WebResponse(status: status).head(method: .get).status.code == 500)
    }
}
