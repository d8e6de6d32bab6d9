/// The token check every request passes first when `serve` has a token (docs/http.md,
/// Access): the token in an `Authorization: Bearer` header or the `loctrack_token` cookie
/// lets the request through; `?token=` once sends the browser on to the same address
/// without it, with the cookie set, so the token leaves the address bar and the history.
struct AccessCheck {
    static let cookieName = "loctrack_token"

    enum Outcome: Equatable {
        case allowed
        /// `303 See Other` to `location`, setting `cookie`.
        case redirect(location: String, cookie: String)
        /// `401`: no token, or a wrong one.
        case refused
    }

    let token: AccessToken

    func check(_ request: WebRequest, query: QueryItems) -> Outcome {
        let offered = query.named("token")
        if !offered.isEmpty {
            // Every `token` item must be the token (a broken encoding is no token).
            guard offered.allSatisfy({ $0.value.map(token.matches) ?? false }) else { return .refused }
            let rest = query.removing("token")
            return .redirect(
                location: Self.sameSitePath(request.path) + (rest.isEmpty ? "" : "?" + rest),
                cookie: "\(Self.cookieName)=\(token.text); HttpOnly; SameSite=Strict; Path=/")
        }
        if let bearer = Self.bearerToken(request.header("Authorization")), token.matches(bearer) { return .allowed }
        let cookies = request.headers.filter { $0.name.lowercased() == "cookie" }.flatMap { Self.cookieValues($0.value) }
        return cookies.contains(where: token.matches) ? .allowed : .refused
    }

    /// `path` when a browser reads it as a path of this server; else `/`. `//host/…` (and
    /// `/\\host/…`, which browsers read alike) would send the browser to another server.
    static func sameSitePath(_ path: String) -> String {
        guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.hasPrefix("/\\") else { return "/" }
        return path
    }

    /// The token of `Bearer TOKEN` (the scheme in any case, RFC 9110 section 11.1).
    static func bearerToken(_ header: String?) -> Substring? {
        guard let header, let space = header.firstIndex(of: " "), header[..<space].lowercased() == "bearer" else { return nil }
        let token = header[space...].drop { $0 == " " }
        return token.isEmpty ? nil : token
    }

    /// The values of the `loctrack_token` cookies in one `Cookie` header (`a=1; b=2`),
    /// double quotes around a value taken away (RFC 6265 section 4.1.1).
    static func cookieValues(_ header: String) -> [Substring] {
        header.split(separator: ";").compactMap { pair in
            let pair = pair.drop { $0 == " " || $0 == "\t" }
            guard let equals = pair.firstIndex(of: "="), pair[..<equals] == cookieName else { return nil }
            var value = pair[pair.index(after: equals)...]
            while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return value
        }
    }
}
