import LocTrackFormats
import LocTrackWeb
import Testing

/// With a token, every request needs it (docs/http.md, Access).
@Suite struct AccessTests {
    let readings = ScriptedReadings(fix: #"{"class":"TPV"}"#)
    var service: WebService { Fixture.service(readings: readings, token: Fixture.token) }

    @Test("given no token or a wrong one when any path is asked then it is 401 with WWW-Authenticate and nothing else",
          arguments: [
            [(name: String, value: String)](),
            [("Authorization", "Bearer wrong")],
            [("Authorization", "Bearer s3cret-Token+/")],
            [("Authorization", "Bearer s3cret-Token+/=x")],
            [("Authorization", "Basic s3cret-Token+/=")],
            [("Authorization", "s3cret-Token+/=")],
            [("Cookie", "loctrack_token=wrong")],
            [("Cookie", "other=s3cret-Token+/=")],
            [("Cookie", "xloctrack_token=s3cret-Token+/=")],
          ])
    func refused(headers: [(name: String, value: String)]) async {
        for path in ["/", "/api/fix", "/events", "/openapi.json", "/no/such/path"] {
            let response = await service.respond(to: .get(path, headers: headers))
            #expect(response.status == 401, "\(path) \(headers)")
            #expect(response.header("WWW-Authenticate") == "Bearer")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.header("Set-Cookie") == nil)
        }
        #expect(readings.openedAfter.isEmpty)
    }

    @Test func givenNoTokenWhenAnotherMethodIsSentThenTheTokenIsAskedBeforeTheMethodIsJudged() async {
        #expect(await service.respond(to: WebRequest(method: "POST", path: "/api/fix")).status == 401)
    }

    @Test("given the token in a Bearer header or the cookie when asked then it is answered",
          arguments: [
            [(name: String, value: String)]([("Authorization", "Bearer s3cret-Token+/=")]),
            [("authorization", "bearer s3cret-Token+/=")],
            [("Cookie", "loctrack_token=s3cret-Token+/=")],
            [("Cookie", "a=1; loctrack_token=s3cret-Token+/=; b=2")],
            [("Cookie", #"loctrack_token="s3cret-Token+/=""#)],
            [("Cookie", "a=1"), ("Cookie", "loctrack_token=s3cret-Token+/=")],
            [("Cookie", "loctrack_token=old"), ("Authorization", "Bearer s3cret-Token+/=")],
          ])
    func allowed(headers: [(name: String, value: String)]) async {
        let response = await service.respond(to: .get("/api/fix", headers: headers))
        #expect(response.status == 200, "\(headers)")
        #expect(response.text == #"{"class":"TPV"}"#)
    }

    @Test func givenTheTokenInTheQueryWhenAskedThenItIs303ToTheSameAddressWithoutItAndTheCookieSet() async {
        let response = await service.respond(to: .get("/", query: "token=s3cret-Token%2B%2F%3D"))
        #expect(response.status == 303)
        #expect(response.header("Location") == "/")
        #expect(response.header("Set-Cookie") == "loctrack_token=s3cret-Token+/=; HttpOnly; SameSite=Strict; Path=/")
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.bytes == [])
    }

    @Test func givenTheTokenAmongOtherQueryItemsWhenAskedThenTheOthersStayInOrderAsSent() async {
        let response = await service.respond(to: .get("/api/track", query: "since=3600&token=s3cret-Token+/=&format=gpx&x=%41"))
        #expect(response.status == 303)
        #expect(response.header("Location") == "/api/track?since=3600&format=gpx&x=%41")
        #expect(readings.trackRequests.isEmpty)
    }

    @Test("given the token in the query of a path a browser would read as another server's when asked then the redirect goes to / instead",
          arguments: ["//evil.example/x", "/\\evil.example/x", "relative", ""])
    func noRedirectAway(path: String) async {
        let response = await service.respond(to: .get(path, query: "token=s3cret-Token+/=&a=1"))
        #expect(response.status == 303)
        #expect(response.header("Location") == "/?a=1")
    }

    @Test func givenTheCookieSetByTheRedirectWhenTheBrowserFollowsThenItIsAnswered() async throws {
        let redirect = await service.respond(to: .get("/", query: "token=s3cret-Token+/="))
        let cookie = try #require(redirect.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let followed = await service.respond(to: .get(try #require(redirect.header("Location")), headers: [("Cookie", cookie)]))
        #expect(followed.status == 200)
    }

    @Test("given a wrong or broken token in the query when asked then it is 401, whatever else the request has",
          arguments: ["token=wrong", "token=", "token", "token=s3cret-Token%zz", "token=s3cret-Token+/=&token=wrong"])
    func wrongQueryToken(query: String) async {
        let response = await service.respond(to: .get("/", query: query, headers: [("Cookie", "loctrack_token=s3cret-Token+/=")]))
        #expect(response.status == 401)
        #expect(response.header("Set-Cookie") == nil)
    }

    @Test func givenNoTokenConfiguredWhenAskedWithoutOneThenItIsAnsweredAndATokenInTheQueryIsJustAnItem() async {
        let open = Fixture.service(readings: readings)
        #expect(await open.respond(to: .get("/api/fix")).status == 200)
        #expect(await open.respond(to: .get("/api/fix", query: "token=x")).status == 200)
    }

    @Test func givenATokenWhenComparedThenOnlyTheExactBytesMatch() async throws {
        let token = try #require(AccessToken("abc"))
        #expect(AccessToken("") == nil)
        #expect(AccessToken("a b") == nil)
        #expect(AccessToken("a;b") == nil)
        #expect(AccessToken("é") == nil)
        #expect(token == AccessToken("abc"))
        #expect(token != AccessToken("abd"))
    }
}
