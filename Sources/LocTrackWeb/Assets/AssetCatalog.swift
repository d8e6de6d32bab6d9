public import LocTrackProcess
import LocTrackSystem

/// The files `serve` serves: a fixed list of URL paths, each read once at start-up into
/// memory. A request's path is only ever looked up in this list; it never reaches the file
/// system, and there is nothing to list (docs/http.md).
public struct AssetCatalog: Sendable {
    /// Which folder a listed file is read from.
    public enum Folder: Sendable, Equatable {
        /// The page's own files (web/ in the source tree, /usr/share/loctrack/web installed).
        case web
        /// Debian's libjs-leaflet.
        case leaflet
    }

    /// One listed file: where it is served and where it is read from.
    public struct Entry: Sendable, Equatable {
        public let path: String
        public let folder: Folder
        /// Below its folder.
        public let file: String
        public let contentType: String
    }

    /// One file, read.
    public struct Asset: Sendable, Equatable {
        public let path: String
        public let contentType: String
        public let body: [UInt8]
        /// A strong validator of `body` (quoted), for `If-None-Match`.
        public let entityTag: String

        public init(path: String, contentType: String, body: [UInt8]) {
            self.path = path
            self.contentType = contentType
            self.body = body
            self.entityTag = Self.entityTag(of: body)
        }

        /// FNV-1a (64 bits) of the bytes, in hex and quotes: files change only with a
        /// new install, and a collision costs one stale file until the next reload.
        static func entityTag(of bytes: [UInt8]) -> String {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            let hex = String(hash, radix: 16)
            return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
        }
    }

    /// Debian's libjs-leaflet (1.7.1 in bookworm).
    public static let leafletDirectory = "/usr/share/javascript/leaflet"

    static let html = "text/html; charset=utf-8"
    static let javaScript = "text/javascript; charset=utf-8"
    static let css = "text/css; charset=utf-8"
    static let png = "image/png"
    static let json = "application/json"

    /// The page's ES modules (web/README.md), each served at `/NAME` with a JavaScript type
    /// (a browser refuses a module script of any other type). `app.js` is the one
    /// index.html loads; it imports the others. The list is web/modules.txt's, which
    /// scripts/install.sh reads; a module is added there and here, and PageModuleListTests
    /// fails until this, the docs and the OpenAPI document all name the same modules.
    public static let pageModules = [
        "app.js", "store.js", "feed.js", "map.js", "panel.js", "distance.js", "controls.js", "staleness.js",
        "words.js", "sky.js", "hooks.js", "layers.js",
    ]

    /// Every file served, and nothing else.
    public static let entries: [Entry] = [
        Entry(path: "/", folder: .web, file: "index.html", contentType: html),
    ] + pageModules.map { name in
        Entry(path: "/" + name, folder: .web, file: name, contentType: javaScript)
    } + [
        Entry(path: "/app.css", folder: .web, file: "app.css", contentType: css),
        Entry(path: "/openapi.json", folder: .web, file: "openapi.json", contentType: json),
        Entry(path: "/leaflet/leaflet.js", folder: .leaflet, file: "leaflet.js", contentType: javaScript),
        Entry(path: "/leaflet/leaflet.css", folder: .leaflet, file: "leaflet.css", contentType: css),
    ] + ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png", "marker-shadow.png"].map { name in
        Entry(path: "/leaflet/images/" + name, folder: .leaflet, file: "images/" + name, contentType: png)
    }

    private let assets: [String: Asset]

    /// A catalog of these assets (tests; ``load(webDirectory:leafletDirectory:)`` reads the real one).
    public init(_ assets: [Asset]) {
        self.assets = Dictionary(assets.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The asset served at the (decoded) `path`, if it is one.
    public func asset(at path: String) -> Asset? { assets[path] }

    /// Why the page's files cannot be read: one line, and exit 72 (EX_OSFILE).
    public struct LoadError: Error, Equatable, CustomStringConvertible {
        public let description: String
        public var exitCode: ExitCode { .osFile }
    }

    /// Reads every listed file.
    /// - Throws: ``LoadError`` naming the first file that cannot be read.
    public static func load(webDirectory: String, leafletDirectory: String = leafletDirectory) throws(LoadError) -> AssetCatalog {
        var assets: [Asset] = []
        for entry in entries {
            let folder = entry.folder == .web ? webDirectory : leafletDirectory
            let file = folder + "/" + entry.file
            do throws(Errno) {
                assets.append(Asset(path: entry.path, contentType: entry.contentType, body: try readWholeFile(file)))
            } catch {
                let hint = entry.folder == .leaflet ? " (Leaflet: apt install libjs-leaflet)" : ""
                throw LoadError(description: "cannot read \(file), a file of serve's page: \(error)\(hint)")
            }
        }
        return AssetCatalog(assets)
    }

    /// Names the page's folder, for tests and unusual installs.
    public static let webDirectoryVariable = "LOCTRACK_WEB_DIR"

    /// Where the page's folder may be, in order: only `override` (`$LOCTRACK_WEB_DIR`)
    /// when it is set; else `../share/loctrack/web` from the server's folder (installed in
    /// a `bin` folder), `../../share/loctrack/web` (installed in `/usr/lib/loctrack`), and
    /// in a source tree the package's `web/`, or for the Serve/ package the one above it.
    public static func webDirectoryCandidates(override: String?, programDirectory: String?) -> [String] {
        if let override, !override.isEmpty { return [override] }
        guard let programDirectory else { return [] }
        var places = [
            InstallLayout.join(programDirectory, "../share/loctrack/web"),
            InstallLayout.join(programDirectory, "../../share/loctrack/web"),
        ]
        if let tree = InstallLayout.sourceTree(of: programDirectory) {
            places.append(InstallLayout.join(tree.root, "web"))
            if tree.root.hasSuffix("/Serve") { places.append(InstallLayout.join(tree.root, "../web")) }
        }
        return places
    }

    /// The page's folder for the running server: the first of
    /// ``webDirectoryCandidates(override:programDirectory:)`` that is a folder.
    /// - Throws: ``LoadError`` naming where it looked.
    public static func locateWebDirectory() throws(LoadError) -> String {
        let places = webDirectoryCandidates(
            // Without /proc/self/exe the candidates are the override alone, and the message says so.
            override: environmentValue(webDirectoryVariable), programDirectory: try? InstallLayout.runningProgramDirectory())
        guard let found = places.first(where: isDirectory) else {
            throw LoadError(description: "cannot find serve's page (looked in "
                            + (places.isEmpty ? "nothing: the server's folder is unknown" : places.joined(separator: ", "))
                            + "; \(webDirectoryVariable) names another folder)")
        }
        return found
    }
}
