import LocTrack
import LocTrackFormats
import LocTrackServeOptions

/// `/api/config`: what the page needs to know before it starts (docs/http.md).
enum ConfigDocument {
    static func json(options: ServeOptions, version: String) -> String {
        JSONValue.object([
            JSONMember("version", .string(version)),
            JSONMember("staleSeconds", .number(options.staleSeconds)),
            JSONMember("monitor", options.monitor.map(JSONValue.string) ?? .null),
            JSONMember("tiles", options.tiles.map { tiles in
                .object([JSONMember("url", .string(tiles.template)), JSONMember("attribution", .string(tiles.attribution))])
            } ?? .null),
        ]).serialized
    }
}
