import Foundation
import LocTrackFormats
import LocTrackWeb
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

    /// Every concrete path the document describes (path templates expanded by their enums).
    static func documentedPaths() throws -> Set<String> {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        var result: Set<String> = []
        for (template, item) in paths {
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

    @Test func givenTheDocumentWhenItsVersionIsReadThenItIsLoctracksAndItIsOpenAPI31() async throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        #expect((document["info"] as? [String: Any])?["version"] as? String == LocTrackVersion.number)
    }
}
