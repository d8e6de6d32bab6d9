/// The headers every response carries (docs/http.md, Access), whatever its status.
enum SecurityHeaders {
    /// The page runs only its own scripts and styles and connects only to its own server;
    /// images come from it, `data:` URLs (Leaflet's), and the tile server when `--tiles`
    /// names one. Nothing may frame it, and it has no forms.
    static func contentSecurityPolicy(tilesOrigin: String?) -> String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:"
            + (tilesOrigin.map { " " + $0 } ?? "")
            + "; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    static func fields(tilesOrigin: String?) -> [(name: String, value: String)] {
        [
            ("Content-Security-Policy", contentSecurityPolicy(tilesOrigin: tilesOrigin)),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
    }
}
