import Foundation
import LocTrackWeb
import Testing

/// The page's ES modules are listed once, in web/modules.txt; every other place that names
/// them is read here and must name exactly those. A module added to web/ and missed in one
/// place was a 404 (the page does not start), a file `make install` left out, or a document
/// that said less than the truth (docs/packaging.md once missed `layers.js`).
@Suite struct PageModuleListTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// web/modules.txt's names in its order: its lines but comments (`#`) and blank ones.
    static func modules() throws -> [String] {
        try text("web/modules.txt").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The `NAME.js` in `line`, in order, each once: a name is letters, digits, `-` and `_`.
    static func scriptNames(in line: some StringProtocol) -> [String] {
        var names: [String] = []
        let characters = Array(line)
        var index = 0
        while index < characters.count {
            guard characters[index].isLetter || characters[index].isNumber else {
                index += 1
                continue
            }
            let start = index
            while index < characters.count,
                  characters[index].isLetter || characters[index].isNumber || characters[index] == "-" || characters[index] == "_" {
                index += 1
            }
            let isStartOfWord = start == 0 || !(characters[start - 1].isLetter || characters[start - 1].isNumber)
            if isStartOfWord, index + 3 <= characters.count, String(characters[index..<index + 3]) == ".js",
               index + 3 == characters.count || !(characters[index + 3].isLetter || characters[index + 3].isNumber) {
                let name = String(characters[start..<index + 3])
                if !names.contains(name) { names.append(name) }
                index += 3
            }
        }
        return names
    }

    /// The one line of `path` that contains `marker` (a document's place for the list).
    static func line(of path: String, containing marker: String) throws -> Substring {
        let lines = try text(path).split(separator: "\n").filter { $0.contains(marker) }
        try #require(lines.count == 1, "\(path): \(lines.count) lines contain '\(marker)', expected 1")
        return lines[0]
    }

    @Test func givenTheListWhenReadThenItIsNamesOfScriptsWithTheEntryModuleFirst() throws {
        let modules = try Self.modules()
        #expect(modules.first == "app.js")
        #expect(modules.count == 12)
        #expect(Set(modules).count == modules.count)
        #expect(modules.allSatisfy { Self.scriptNames(in: $0) == [$0] })
    }

    @Test func givenTheListWhenComparedThenTheServersCatalogServesExactlyIt() throws {
        #expect(AssetCatalog.pageModules == (try Self.modules()))
    }

    @Test func givenTheListWhenComparedThenTheWebFolderHoldsExactlyThoseScripts() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("web").path)
        #expect(Set(files.filter { $0.hasSuffix(".js") }) == Set(try Self.modules()))
    }

    @Test func givenTheListWhenComparedThenWebREADMEsTableHasARowForEachAndNoOther() throws {
        // A row of the files table starts with its file name in backticks.
        let rows = try Self.text("web/README.md").split(separator: "\n").filter { $0.hasPrefix("| `") }
        let named = rows.compactMap { row in row.split(separator: "|").first.flatMap { Self.scriptNames(in: $0).first } }
        #expect(named.sorted() == (try Self.modules()).sorted())
    }

    @Test func givenTheListWhenComparedThenTheOpenAPIDocumentsModuleParameterIsExactlyIt() throws {
        let data = try Data(contentsOf: Self.repository.appendingPathComponent("web/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let path = try #require((document["paths"] as? [String: Any])?["/{module}"] as? [String: Any])
        let parameters = try #require((path["get"] as? [String: Any])?["parameters"] as? [[String: Any]])
        let module = try #require(parameters.first { $0["name"] as? String == "module" })
        #expect((module["schema"] as? [String: Any])?["enum"] as? [String] == (try Self.modules()))
    }

    @Test func givenTheListWhenComparedThenDocsHttpMdsRowOfThePagesFilesNamesExactlyIt() throws {
        let row = try Self.line(of: "docs/http.md", containing: "the page's own files")
        let firstCell = try #require(row.split(separator: "|").first)
        #expect(Self.scriptNames(in: firstCell) == (try Self.modules()))
    }

    @Test func givenTheListWhenComparedThenDocsPackagingMdsWebFolderNamesExactlyIt() throws {
        let line = try Self.line(of: "docs/packaging.md", containing: "the page's ES modules")
        // `libjs-leaflet` is a package, not a script: only names in backticks count.
        let quoted = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
        #expect(quoted.flatMap { Self.scriptNames(in: $0.element) } == (try Self.modules()))
    }

    @Test func givenTheInstallScriptWhenReadThenItTakesTheModulesFromTheListNotAListOfItsOwn() throws {
        let script = try Self.text("scripts/install.sh")
        #expect(script.contains("web/modules.txt"))
        let assignment = try Self.line(of: "scripts/install.sh", containing: "WEB_FILES=(")
        #expect(Self.scriptNames(in: assignment).isEmpty, "install.sh names modules itself: \(assignment)")
    }
}
