import LocTrackWeb
import LocTrackServeOptions
import Testing

/// The page's files: served from memory with their type, `no-cache`, and an ETag.
@Suite struct AssetRouteTests {
    @Test func givenThePageWhenRootIsAskedThenItIsIndexHTMLWithItsTypeAndNoCache() async {
        let response = await Fixture.service().respond(to: .get("/"))
        #expect(response.status == 200)
        #expect(response.text == "<!doctype html>")
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(response.header("Cache-Control") == "no-cache")
        #expect(response.header("ETag") == Fixture.page.entityTag)
    }

    @Test func givenAPNGWhenAskedThenTheBytesAreExactlyTheFiles() async {
        let response = await Fixture.service().respond(to: .get("/leaflet/images/layers.png"))
        #expect(response.bytes == [0x89, 0x50, 0x4E, 0x47])
        #expect(response.header("Content-Type") == "image/png")
    }

    @Test func givenTheClientsCurrentETagWhenAskedAgainThenItIs304WithoutBody() async {
        let tag = Fixture.script.entityTag
        for header in [tag, "W/" + tag, #""other", "# + tag, "*"] {
            let response = await Fixture.service().respond(to: .get("/app.js", headers: [("If-None-Match", header)]))
            #expect(response.status == 304, "\(header)")
            #expect(response.bytes == [])
            #expect(response.header("ETag") == tag)
            #expect(response.header("Cache-Control") == "no-cache")
        }
    }

    @Test func givenAnOldETagWhenAskedThenTheFileIsSentAgain() async {
        let response = await Fixture.service().respond(to: .get("/app.js", headers: [("If-None-Match", #""0000000000000000""#)]))
        #expect(response.status == 200)
        #expect(response.text == "1;")
    }

    @Test func givenEachOfThePagesModulesWhenAskedThenItIsJavaScriptUnderTheCSPThatLetsItRun() async {
        let catalog = AssetCatalog(AssetCatalog.entries.map {
            AssetCatalog.Asset(path: $0.path, contentType: $0.contentType, body: Array("export {};".utf8))
        })
        let service = WebService(readings: ScriptedReadings(), assets: catalog, token: nil, options: ServeOptions())
        for name in AssetCatalog.pageModules {
            let response = await service.respond(to: .get("/" + name))
            #expect(response.status == 200, "\(name)")
            #expect(response.header("Content-Type") == "text/javascript; charset=utf-8", "\(name)")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Cache-Control") == "no-cache")
            // script-src 'self' is what lets index.html's <script type="module"> and its imports run.
            #expect(response.header("Content-Security-Policy") == SecurityHeaderTests.policy, "\(name)")
            #expect(response.text == "export {};")
        }
    }

    @Test func givenTwoDifferentBodiesWhenTaggedThenTheTagsDifferAndAreQuotedHex() async {
        let one = AssetCatalog.Asset(path: "/a", contentType: "x", body: Array("a".utf8))
        let two = AssetCatalog.Asset(path: "/a", contentType: "x", body: Array("b".utf8))
        #expect(one.entityTag != two.entityTag)
        // FNV-1a 64 of "a".
        #expect(one.entityTag == #""af63dc4c8601ec8c""#)
    }
}
