public import HTTPTypes
public import LocTrackWeb

extension WebResponse {
    /// The status line and header fields to send for this response to a request with
    /// `method`: the routes' fields in order (a name HTTP does not allow is left out, it
    /// would be a bug of the routes, not a reason to fail the request), and the framing,
    /// which is the server's: Content-Length for a whole body, none for an event stream
    /// (chunked), none for 1xx, 204 and 304, which have no body.
    public func head(method: HTTPRequest.Method) -> HTTPResponse {
        // A status out of range would trap in swift-http-types; the routes never make one.
        let status = (100...999).contains(status) ? HTTPResponse.Status(code: status) : .internalServerError
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count + 3)
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        switch body {
        case .bytes(let bytes):
            let hasNoBody = status.kind == .informational || status.code == 204 || status.code == 304
            // For HEAD the routes may give the GET's body or none: a Content-Length of their
            // own wins, else the body's (RFC 9110 9.3.2: the length a GET would have).
            if !hasNoBody, fields[.contentLength] == nil || method != .head {
                fields[.contentLength] = String(bytes.count)
            }
        case .events:
            fields[.contentLength] = nil
            if fields[.contentType] == nil { fields[.contentType] = "text/event-stream" }
            if fields[.cacheControl] == nil { fields[.cacheControl] = "no-store" }
        }
        return HTTPResponse(status: status, headerFields: fields)
    }
}
