/// One HTTP request as the routes see it: what the server library parsed, copied out of its
/// types, so that everything `serve` decides is tested without a server (Serve/ adapts).
public struct WebRequest: Sendable, Equatable {
    /// The method as sent (`GET`, `HEAD`, …).
    public var method: String
    /// The path as sent, still percent-encoded, without the query: `/api/track`.
    public var path: String
    /// The query as sent, still percent-encoded, without the `?` (empty when none).
    public var query: String
    /// Header fields in order; names as sent (compare them case-insensitively).
    public var headers: [(name: String, value: String)]
    /// Whether the request has a body (Content-Length > 0 or chunked): refused with 413.
    public var hasBody: Bool

    public init(method: String, path: String, query: String = "", headers: [(name: String, value: String)] = [], hasBody: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.hasBody = hasBody
    }

    /// The first value of a header, its name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: WebRequest, rhs: WebRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.query == rhs.query && lhs.hasBody == rhs.hasBody
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}
