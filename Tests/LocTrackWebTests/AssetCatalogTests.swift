import Foundation
import LocTrackProcess
import LocTrackSystem
import LocTrackWeb
import Testing

/// The fixed list of files, read once from the page's folder and Leaflet's.
@Suite struct AssetCatalogTests {
    /// A web folder and a Leaflet folder holding every listed file; each file's text is its path.
    static func writeEveryFile(in folder: borrowing TemporaryDirectory) throws -> (web: String, leaflet: String) {
        for entry in AssetCatalog.entries {
            try folder.write("<\(entry.path)>", to: (entry.folder == .web ? "web/" : "leaflet/") + entry.file)
        }
        return (folder.path + "/web", folder.path + "/leaflet")
    }

    @Test func givenEveryFileWhenLoadedThenEachListedPathServesItsFileWithItsType() throws {
        let folder = try TemporaryDirectory()
        let (web, leaflet) = try Self.writeEveryFile(in: folder)
        let catalog = try AssetCatalog.load(webDirectory: web, leafletDirectory: leaflet)
        for entry in AssetCatalog.entries {
            let asset = try #require(catalog.asset(at: entry.path))
            #expect(asset.body == Array("<\(entry.path)>".utf8))
            #expect(asset.contentType == entry.contentType)
        }
        #expect(catalog.asset(at: "/index.html") == nil)
        #expect(catalog.asset(at: "/leaflet/leaflet.min.js") == nil)
    }

    @Test func givenTheListWhenReadThenItIsExactlyThePathsDocsHttpMdNames() {
        // The modules are web/modules.txt's (PageModuleListTests), not written out again here.
        #expect(AssetCatalog.entries.map(\.path) == ["/"] + AssetCatalog.pageModules.map { "/" + $0 } + [
            "/app.css", "/openapi.json", "/leaflet/leaflet.js", "/leaflet/leaflet.css", "/leaflet/images/layers.png",
            "/leaflet/images/layers-2x.png", "/leaflet/images/marker-icon.png", "/leaflet/images/marker-icon-2x.png", "/leaflet/images/marker-shadow.png",
        ])
        #expect(AssetCatalog.entries.first { $0.path == "/" }?.file == "index.html")
        #expect(AssetCatalog.entries.filter { $0.folder == .leaflet }.allSatisfy { !$0.file.contains("..") })
    }

    @Test func givenThePagesModulesWhenListedThenEachIsAWebFileAtItsOwnNameServedAsJavaScript() throws {
        #expect(Set(AssetCatalog.pageModules).count == AssetCatalog.pageModules.count)
        #expect(AssetCatalog.pageModules.first == "app.js")
        for name in AssetCatalog.pageModules {
            let entry = try #require(AssetCatalog.entries.first { $0.path == "/" + name })
            #expect(entry.folder == .web)
            #expect(entry.file == name)
            // A browser runs a module script only with a JavaScript type (nosniff or not).
            #expect(entry.contentType == "text/javascript; charset=utf-8", "\(name)")
            #expect(!name.contains("/") && !name.contains("..") && name.hasSuffix(".js"), "\(name)")
        }
    }

    @Test("given one listed file missing when loaded then it is one line naming that file, exit 72",
          arguments: AssetCatalog.entries.map(\.path))
    func missingFile(path: String) throws {
        let entry = try #require(AssetCatalog.entries.first { $0.path == path })
        let folder = try TemporaryDirectory()
        let (web, leaflet) = try Self.writeEveryFile(in: folder)
        let missing = (entry.folder == .web ? web : leaflet) + "/" + entry.file
        try LocTrackSystem.removeFile(missing)
        let error = try #require(throws: AssetCatalog.LoadError.self) {
            try AssetCatalog.load(webDirectory: web, leafletDirectory: leaflet)
        }
        #expect(error.description.hasPrefix("cannot read \(missing), a file of serve's page: No such file or directory"))
        #expect(error.description.hasSuffix("(Leaflet: apt install libjs-leaflet)") == (entry.folder == .leaflet))
        #expect(error.exitCode == .osFile)
        #expect(ExitCode.osFile.rawValue == 72)
    }

    @Test func givenLOCTRACK_WEB_DIRWhenTheFolderIsLookedForThenOnlyItIsTried() {
        #expect(AssetCatalog.webDirectoryCandidates(override: "/srv/web", programDirectory: "/usr/bin") == ["/srv/web"])
    }

    @Test func givenAnInstalledServerWhenTheFolderIsLookedForThenShareLoctrackWebIsTriedFromBinAndFromLib() {
        #expect(AssetCatalog.webDirectoryCandidates(override: nil, programDirectory: "/usr/lib/loctrack") == [
            "/usr/lib/share/loctrack/web", "/usr/share/loctrack/web",
        ])
        #expect(AssetCatalog.webDirectoryCandidates(override: "", programDirectory: "/usr/local/bin") == [
            "/usr/local/share/loctrack/web", "/usr/share/loctrack/web",
        ])
    }

    @Test func givenAServerBuiltInASourceTreeWhenTheFolderIsLookedForThenThePackagesWebFolderIsTried() {
        let places = AssetCatalog.webDirectoryCandidates(
            override: nil, programDirectory: "/home/me/loctrack/Serve/.build/x86_64-unknown-linux-gnu/release")
        #expect(places.suffix(2) == ["/home/me/loctrack/Serve/web", "/home/me/loctrack/web"])
        let root = AssetCatalog.webDirectoryCandidates(
            override: nil, programDirectory: "/home/me/loctrack/.build/x86_64-unknown-linux-gnu/debug")
        #expect(root.last == "/home/me/loctrack/web")
    }

    @Test func givenNoKnownFolderWhenLookedForThenNothingIsTried() {
        #expect(AssetCatalog.webDirectoryCandidates(override: nil, programDirectory: nil).isEmpty)
    }
}

