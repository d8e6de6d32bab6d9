import LocTrackCharts
import LocTrackFormats
import LocTrackWeb
import LocTrackServeOptions

/// Small catalogs, services and readers of responses the route tests share.
enum Fixture {
    static let page = AssetCatalog.Asset(path: "/", contentType: "text/html; charset=utf-8", body: Array("<!doctype html>".utf8))
    static let script = AssetCatalog.Asset(path: "/app.js", contentType: "text/javascript; charset=utf-8", body: Array("1;".utf8))
    static let icon = AssetCatalog.Asset(path: "/leaflet/images/layers.png", contentType: "image/png", body: [0x89, 0x50, 0x4E, 0x47])
    static let assets = AssetCatalog([page, script, icon])

    static let token = AccessToken("s3cret-Token+/=")!

    static func service(readings: ScriptedReadings = ScriptedReadings(), token: AccessToken? = nil,
                        options: ServeOptions = ServeOptions(), charts: ChartLibrary? = nil) -> WebService {
        WebService(readings: readings, assets: assets, token: token, options: options, charts: charts)
    }
}

extension WebRequest {
    static func get(_ path: String, query: String = "", headers: [(name: String, value: String)] = []) -> WebRequest {
        WebRequest(method: "GET", path: path, query: query, headers: headers)
    }
}

extension WebResponse {
    /// The bytes of a `.bytes` body (nil for a stream).
    var bytes: [UInt8]? {
        if case .bytes(let bytes) = body { bytes } else { nil }
    }

    var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// Every header called `name`, in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}
