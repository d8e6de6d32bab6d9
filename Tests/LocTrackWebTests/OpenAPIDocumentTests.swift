import Foundation
import LocTrackCharts
import LocTrackProcess
@testable import LocTrackWeb
import Testing
import LocTrackServeOptions

/// web/openapi.json against what the server does: the same paths, the same schemas as
/// docs/fix.schema.json and docs/event.schema.json, the same security headers.
@Suite struct OpenAPIDocumentTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: repository.appendingPathComponent(path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func document() throws -> [String: Any] { try json("web/openapi.json") }

    /// The tiles' path template: numbers in ranges, not a list (``TileAddress``).
    static let tileTemplate = TileAddress.pathPrefix + "{layer}/{z}/{x}/{y}.{ext}"

    /// Every concrete path the document describes (path templates expanded by their enums),
    /// but the tiles' (``tileTemplate``).
    static func documentedPaths() throws -> Set<String> {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        var result: Set<String> = []
        for (template, item) in paths where template != tileTemplate {
            guard template.contains("{") else {
                result.insert(template)
                continue
            }
            let operation = try #require(item["get"] as? [String: Any])
            let parameters = try #require(operation["parameters"] as? [[String: Any]])
            let name = try #require(parameters.first { $0["in"] as? String == "path" })
            let values = try #require((name["schema"] as? [String: Any])?["enum"] as? [String])
            for value in values { result.insert(template.replacingOccurrences(of: "{\(name["name"]!)}", with: value)) }
        }
        return result
    }

    /// JSON text with sorted keys: equal for equal values, whatever the members' order.
    static func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func givenTheDocumentWhenItsPathsAreListedThenTheyAreExactlyTheServedOnes() async throws {
        let served = Set(AssetCatalog.entries.map(\.path) + APIRoute.allCases.map(\.rawValue))
        #expect(try Self.documentedPaths() == served)
    }

    @Test func givenEveryDocumentedPathWhenAskedThenItIsAnsweredAndNoneIs404() async throws {
        let catalog = AssetCatalog(AssetCatalog.entries.map { AssetCatalog.Asset(path: $0.path, contentType: $0.contentType, body: [1]) })
        let service = WebService(readings: ScriptedReadings(fix: "{}", sky: "{}"), assets: catalog, token: nil, options: ServeOptions())
        for path in try Self.documentedPaths() {
            #expect(await service.respond(to: .get(path)).status == 200, "\(path)")
        }
    }

    @Test func givenTheFixAndRegionEventSchemasWhenComparedWithDocsThenTheyAreTheSame() async throws {
        let schemas = try #require((try Self.document()["components"] as? [String: Any])?["schemas"] as? [String: Any])
        for (name, file) in [("Fix", "docs/fix.schema.json"), ("RegionEvent", "docs/event.schema.json")] {
            var fromDocs = try Self.json(file)
            var inDocument = try #require(schemas[name] as? [String: Any])
            fromDocs["$schema"] = nil
            // The document's description of an event says where it goes; the rest must agree.
            fromDocs["description"] = nil
            inDocument["description"] = nil
            #expect(try Self.canonical(inDocument) == Self.canonical(fromDocs), "\(name) differs from \(file)")
        }
    }

    @Test func givenTheServersCSPWithAndWithoutTilesWhenMatchedThenTheDocumentsPatternAcceptsIt() async throws {
        let headers = try #require((try Self.document()["components"] as? [String: Any])?["headers"] as? [String: [String: Any]])
        let pattern = try #require((headers["ContentSecurityPolicy"]?["schema"] as? [String: Any])?["pattern"] as? String)
        let expression = try NSRegularExpression(pattern: pattern)
        for tiles in [nil, try TileSource(template: "https://{s}.tile.example.org:8443/{z}/{x}/{y}.png")] {
            let service = Fixture.service(options: ServeOptions(tiles: tiles))
            let policy = try #require(await service.respond(to: .get("/")).header("Content-Security-Policy"))
            #expect(expression.firstMatch(in: policy, range: NSRange(policy.startIndex..., in: policy)) != nil, "\(policy)")
        }
    }

    /// The tile operation's path parameters, by name.
    static func tileParameters() throws -> [String: [String: Any]] {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        let operation = try #require(paths[tileTemplate]?["get"] as? [String: Any], "no \(tileTemplate) in the document")
        let parameters = try #require(operation["parameters"] as? [[String: Any]])
        var byName: [String: [String: Any]] = [:]
        for parameter in parameters where parameter["in"] as? String == "path" {
            byName[try #require(parameter["name"] as? String)] = try #require(parameter["schema"] as? [String: Any])
        }
        return byName
    }

    @Test func givenEachTileParameterAtAndBeyondItsBoundsWhenParsedThenTheServerTakesExactlyWhatTheDocumentAdmits() throws {
        let parameters = try Self.tileParameters()
        #expect(Set(parameters.keys) == ["layer", "z", "x", "y", "ext"])
        let valid = ["layer": "1", "z": "0", "x": "0", "y": "0", "ext": "png"]
        func path(_ values: [String: String]) -> String {
            TileAddress.pathPrefix + "\(values["layer"]!)/\(values["z"]!)/\(values["x"]!)/\(values["y"]!).\(values["ext"]!)"
        }
        #expect(TileAddress.parse(path(valid)) != .malformed)
        for (name, schema) in parameters {
            // (value, whether the document admits it)
            var tries: [(String, Bool)] = []
            if let choices = schema["enum"] as? [String] {
                tries = choices.map { ($0, true) } + [("gif", false), ("PNG", false), ("", false)]
            } else {
                #expect(schema["type"] as? String == "integer", "\(name)")
                let lowest = try #require(schema["minimum"] as? Int, "\(name)")
                let highest = try #require(schema["maximum"] as? Int, "\(name)")
                tries = [(lowest, true), (highest, true), (lowest - 1, false), (highest + 1, false)].map { (String($0.0), $0.1) }
                    + [("0" + String(max(lowest, 1)), false), ("+1", false), ("", false)]
            }
            for (value, admitted) in tries {
                var values = valid
                values[name] = value
                let parsed = TileAddress.parse(path(values))
                #expect((parsed != .malformed) == admitted, "\(name) = \(value): \(path(values)) is \(parsed)")
            }
        }
    }

    @Test func givenNoChartsWhenAWellFormedAndAMalformedTileAreAskedForThenTheyAreTheDocumented404And400() async throws {
        let document = try Self.document()
        let headers = try #require((document["components"] as? [String: Any])?["headers"] as? [String: [String: Any]])
        let cacheControl = try #require((headers["CacheControlTile"]?["schema"] as? [String: Any])?["const"] as? String)
        let service = Fixture.service()

        let absent = await service.respond(to: .get("/tiles/1/0/0/0.png"))
        #expect(absent.status == 404)
        #expect(absent.bytes == [])
        #expect(absent.header("Cache-Control") == cacheControl)
        #expect(absent.header("Content-Type") == nil)

        let malformed = await service.respond(to: .get("/tiles/1/0/0/00.png"))
        #expect(malformed.status == 400)
        #expect(malformed.header("Content-Type")?.hasPrefix("text/plain") == true)
        let reason = try #require((document["components"] as? [String: Any]).flatMap { $0["schemas"] as? [String: Any] }?["Reason"]
            as? [String: Any])
        let line = try NSRegularExpression(pattern: try #require(reason["pattern"] as? String))
        let text = try #require(malformed.text)
        #expect(line.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil, "\(text)")
    }

    @Test func givenAChartLayerWhenTheConfigListsItThenItHasExactlyTheDocumentedFieldsAndItsTagsMatchThePattern() throws {
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let tileLayer = try #require(schemas["TileLayer"] as? [String: Any])
        let config = try #require(schemas["Config"] as? [String: Any])
        #expect((config["required"] as? [String])?.contains("layers") == true)

        let layer = ChartLayer(
            number: 2, path: "/charts/seamarks.mbtiles", name: "Seamarks", attribution: "© OpenSeaMap contributors",
            format: "png", minZoom: 9, maxZoom: 18, bounds: .world, center: (longitude: -4.15, latitude: 48.35, zoom: 14),
            isOverlay: true, fileTag: "0123456789abcdef")
        let text = ConfigDocument.json(options: ServeOptions(), layers: [layer], version: LocTrackVersion.number)
        let served = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let layers = try #require(served["layers"] as? [[String: Any]])
        let listed = try #require(layers.first)
        #expect(Set(listed.keys) == Set(try #require(tileLayer["required"] as? [String])))
        #expect(Set(listed.keys) == Set(try #require(tileLayer["properties"] as? [String: Any]).keys))
        let url = try #require(listed["url"] as? String)
        let urlPattern = try #require(((tileLayer["properties"] as? [String: Any])?["url"] as? [String: Any])?["pattern"] as? String)
        #expect(try NSRegularExpression(pattern: urlPattern).firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil, "\(url)")

        let headers = try #require(components["headers"] as? [String: [String: Any]])
        let tagPattern = try #require((headers["TileETag"]?["schema"] as? [String: Any])?["pattern"] as? String)
        let tag = layer.entityTag(TileAddress(layer: 2, zoom: 30, column: 1_073_741_823, row: 0, fileExtension: "png"))
        #expect(try NSRegularExpression(pattern: tagPattern).firstMatch(in: tag, range: NSRange(tag.startIndex..., in: tag)) != nil, "\(tag)")
    }

    @Test func givenTheDocumentWhenItsVersionIsReadThenItIsLoctracksAndItIsOpenAPI31() async throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        #expect((document["info"] as? [String: Any])?["version"] as? String == LocTrackVersion.number)
    }
}
