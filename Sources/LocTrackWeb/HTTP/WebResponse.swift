/// What the routes answer. Serve/ turns it into the server library's response.
public struct WebResponse: Sendable {
    public var status: Int
    /// Header fields in order. Content-Length is the server library's to add.
    public var headers: [(name: String, value: String)]
    public var body: Body

    public enum Body: Sendable {
        /// The whole body (empty for 204, 303, and HEAD: the server sends no body for HEAD).
        case bytes([UInt8])
        /// A server-sent event stream: write each chunk as it comes, end when it ends.
        case events(EventStream)
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, its name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
