import LocTrack
import LocTrackFormats
import LocTrackServeOptions
import LocTrackCharts

/// `/api/config`: what the page needs to know before it starts (docs/http.md).
enum ConfigDocument {
    static func json(options: ServeOptions, layers: [ChartLayer], version: String) -> String {
        JSONValue.object([
            JSONMember("version", .string(version)),
            JSONMember("staleSeconds", .number(options.staleSeconds)),
            JSONMember("monitor", options.monitor.map(JSONValue.string) ?? .null),
            JSONMember("tiles", options.tiles.map { tiles in
                .object([JSONMember("url", .string(tiles.template)), JSONMember("attribution", .string(tiles.attribution))])
            } ?? .null),
            JSONMember("layers", .array(layers.map(layer))),
        ]).serialized
    }

    /// A `--tiles-file` chart as the page draws it.
    private static func layer(_ layer: ChartLayer) -> JSONValue {
        let bounds = layer.bounds
        return .object([
            JSONMember("name", .string(layer.name)),
            JSONMember("url", .string(layer.urlTemplate)),
            JSONMember("format", .string(layer.format)),
            JSONMember("minzoom", .number(Double(layer.minZoom))),
            JSONMember("maxzoom", .number(Double(layer.maxZoom))),
            JSONMember("bounds", .array([bounds.west, bounds.south, bounds.east, bounds.north].map(JSONValue.number))),
            JSONMember("center", layer.center.map { center in
                .array([.number(center.longitude), .number(center.latitude), .number(Double(center.zoom))])
            } ?? .null),
            JSONMember("attribution", .string(layer.attribution)),
            JSONMember("overlay", .bool(layer.isOverlay)),
        ])
    }
}
