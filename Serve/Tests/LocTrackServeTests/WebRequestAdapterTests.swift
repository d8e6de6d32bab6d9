import HTTPTypes
import LocTrackWeb
import Testing
@testable import LocTrackServe

@Suite("A Hummingbird request as the routes see it")
struct WebRequestAdapterTests {
    @Test("the target is split at the first ? and stays percent-encoded")
    func pathAndQueryAsSent() {
        let head = HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/api/%2E%2E/track?since=2026-11-24T08%3A00%3A00Z&x=a?b")
        let request = WebRequest(head)
        #expect(request.method == "GET")
        #expect(request.path == "/api/%2E%2E/track")
        #expect(request.query == "since=2026-11-24T08%3A00%3A00Z&x=a?b")
    }

    @Test("a target without a query has an empty one")
    func noQuery() {
        let request = WebRequest(HTTPRequest(method: .head, scheme: "http", authority: nil, path: "/events"))
        #expect(request.method == "HEAD")
        #expect(request.path == "/events")
        #expect(request.query == "")
    }

    @Test("Host comes back first, then every field in order with its name as sent")
    func headersInOrder() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("Last-Event-ID")!, value: "5f3a9c-1042"))
        fields.append(HTTPField(name: .cookie, value: "a=1; loctrack_token=s3cret"))
        fields.append(HTTPField(name: .authorization, value: "Bearer t"))
        let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8947", path: "/", headerFields: fields)
        let request = WebRequest(head)
        #expect(request.headers.map(\.name) == ["Host", "Last-Event-ID", "Cookie", "Authorization"])
        #expect(request.headers.map(\.value) == ["127.0.0.1:8947", "5f3a9c-1042", "a=1; loctrack_token=s3cret", "Bearer t"])
        #expect(request.header("last-event-id") == "5f3a9c-1042")
        #expect(request.hasBody == false)
    }

    @Test("a body is announced by a Content-Length above 0 or by any Transfer-Encoding", arguments: [
        ("Content-Length", "0", false),
        ("Content-Length", "000", false),
        ("Content-Length", "5", true),
        ("Content-Length", "10", true),
        ("Transfer-Encoding", "chunked", true),
        ("Accept", "text/event-stream", false),
    ])
    func announcedBody(name: String, value: String, hasBody: Bool) {
        let fields: HTTPFields = [HTTPField.Name(name)!: value]
        let head = HTTPRequest(method: .post, scheme: "http", authority: nil, path: "/api/fix", headerFields: fields)
        #expect(WebRequest(head).hasBody == hasBody)
    }
}
