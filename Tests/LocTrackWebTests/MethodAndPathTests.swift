import LocTrackWeb
import Testing

/// Methods, bodies and paths: only GET and HEAD of exactly a listed path are answered.
@Suite struct MethodAndPathTests {
    @Test("given a method other than GET and HEAD when sent to any path then it is 405 with Allow",
          arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "get", "BREW"])
    func otherMethods(method: String) async {
        for path in ["/", "/api/fix", "/no/such/path"] {
            let response = await Fixture.service().respond(to: WebRequest(method: method, path: path))
            #expect(response.status == 405, "\(method) \(path)")
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.text == "method not allowed: only GET and HEAD\n")
        }
    }

    @Test func givenARequestWithABodyWhenSentThenItIs413WhateverItsMethodAndPath() async {
        for (method, path) in [("GET", "/api/fix"), ("POST", "/events"), ("GET", "/nothing")] {
            let response = await Fixture.service().respond(to: WebRequest(method: method, path: path, hasBody: true))
            #expect(response.status == 413, "\(method) \(path)")
            #expect(response.text?.hasSuffix("\n") == true)
        }
    }

    @Test func givenHEADOfAnApiPathWhenAnsweredThenItHasGETsStatusAndHeadersWithoutBody() async {
        let readings = ScriptedReadings(fix: #"{"class":"TPV"}"#)
        let service = Fixture.service(readings: readings)
        for path in ["/api/fix", "/api/status", "/api/regions", "/api/config", "/", "/app.js"] {
            let get = await service.respond(to: .get(path))
            let head = await service.respond(to: WebRequest(method: "HEAD", path: path))
            #expect(head.status == get.status, "\(path)")
            // GET's Content-Length is the server library's to add from the body; HEAD has no
            // body, so the routes give the length GET's body would have (RFC 9110 9.3.2).
            let getLength = get.bytes?.count ?? -1
            #expect(head.headers.map(\.name) == get.headers.map(\.name) + ["Content-Length"], "\(path)")
            #expect(head.headers.map(\.value) == get.headers.map(\.value) + ["\(getLength)"], "\(path)")
            #expect(head.bytes == [], "\(path)")
            #expect(getLength > 0, "\(path)")
        }
    }

    @Test func givenHEADOfAMissingPathWhenAnsweredThenItIs404WithoutBody() async {
        let response = await Fixture.service().respond(to: WebRequest(method: "HEAD", path: "/missing"))
        #expect(response.status == 404)
        #expect(response.bytes == [])
    }

    @Test("given a path that is not exactly a listed one when asked then it is 404 and nothing is served",
          arguments: [
            "/index.html", "/app.js/", "//app.js", "/./app.js", "/leaflet/../app.js", "/leaflet/images/../../app.js",
            "/%2e%2e/etc/passwd", "/..%2fetc%2fpasswd", "/leaflet%2fleaflet.js", "/leaflet%2Fimages%2Flayers.png",
            "/..\\app.js", "/%5c..%5capp.js", "/app.js%00", "/app.js%00.png", "/%00", "/%c0%ae%c0%ae/etc/passwd",
            "/%e2%80%ae", "/app.js%20", "/api/fix/", "/api//fix", "/API/FIX", "/leaflet/", "/leaflet/images/",
            "/leaflet/images/marker.png", "/etc/passwd", "/web/index.html", "/%", "/%4", "/%zz", "/%%32%65",
            "relative", "", "*", "/" + String(repeating: "a", count: 300),
            "/" + String(repeating: "../", count: 100) + "etc/passwd",
          ])
    func unlisted(path: String) async {
        let response = await Fixture.service(readings: ScriptedReadings(fix: "{}")).respond(to: .get(path))
        #expect(response.status == 404)
        #expect(response.text == "not found\n")
    }

    @Test func givenAListedPathWithPercentEncodedLettersWhenAskedThenItIsThatPath() async {
        // RFC 3986: an encoded unreserved character is the character.
        let response = await Fixture.service().respond(to: .get("/app%2Ejs"))
        #expect(response.status == 200)
        #expect(response.text == "1;")
    }

    @Test func givenAQueryOnAnAssetWhenAskedThenTheQueryIsIgnored() async {
        #expect(await Fixture.service().respond(to: .get("/app.js", query: "v=2")).text == "1;")
    }

    @Test("given a request target with a byte a request line cannot hold when asked then it is 400",
          arguments: [("/api/fix\r\nX: y", ""), ("/api fix", ""), ("/api/fix", "a=b c"), ("/é", "")])
    func unprintableTargets(path: String, query: String) async {
        #expect(await Fixture.service().respond(to: .get(path, query: query)).status == 400)
    }
}
