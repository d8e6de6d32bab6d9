public import HTTPTypes
public import LocTrackWeb

extension WebRequest {
    /// The request as the routes see it (docs/http.md), from what Hummingbird parsed: the
    /// request target exactly as sent, split at the first `?`, still percent-encoded (the
    /// routes decode, so that `%2F` or `..` never reach a file name by way of a decoder
    /// here), and every header field in order.
    public init(_ head: HTTPRequest) {
        // `path` is the request target as sent (origin form `/a?b`, or `*` for OPTIONS).
        let target = head.path ?? ""
        let path: Substring
        let query: Substring
        if let mark = target.firstIndex(of: "?") {
            path = target[..<mark]
            query = target[target.index(after: mark)...]
        } else {
            path = target[...]
            query = ""
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(head.headerFields.count + 1)
        // swift-http-types moves Host into `authority`; the routes see it as a header again.
        if let host = head.authority { headers.append((name: "Host", value: host)) }
        for field in head.headerFields { headers.append((name: field.name.rawName, value: field.value)) }
        self.init(
            method: head.method.rawValue, path: String(path), query: String(query), headers: headers,
            hasBody: Self.announcesBody(head.headerFields))
    }

    /// Whether the head announces a body: a Content-Length other than 0, or any
    /// Transfer-Encoding (HTTP/1.1 bodies have no other framing). The decoder has refused
    /// a malformed Content-Length already.
    static func announcesBody(_ fields: HTTPFields) -> Bool {
        if fields[.transferEncoding] != nil { return true }
        guard let length = fields[.contentLength] else { return false }
        return length.utf8.contains { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }
    }
}
