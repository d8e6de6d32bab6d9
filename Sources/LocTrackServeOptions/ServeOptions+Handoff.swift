import LocTrackFormats
import LocTrack
public import LocTrackProcess

/// How `loctrack serve` hands its parsed options to `loctrack-serve`: two arguments,
/// `--options` and one JSON object with every field of ``ServeOptions``. A form of the
/// program's own, not the user's: its values were checked when the words were parsed, so
/// reading it back cannot meet a usage error, only a server started by hand (``HandoffError``,
/// LocTrackProcess's, which `loctrack-trips` says the same way).
extension ServeOptions {
    /// The flag before the JSON object.
    public static let handoffFlag = "--options"

    /// The arguments after the program name that give the server these options.
    public var handoffArguments: [String] {
        var members: [JSONMember] = [
            JSONMember("listen", .string(listen.description)),
            JSONMember("dwell", .number(dwellSeconds)),
            JSONMember("stale", .number(staleSeconds)),
            JSONMember("maxStreams", .number(Double(maximumStreams))),
            JSONMember("verbose", .bool(verbose)),
            JSONMember("gpsdHost", .string(source.host)),
            JSONMember("gpsdPort", .string(source.port)),
        ]
        func add(_ key: String, _ text: String?) {
            if let text { members.append(JSONMember(key, .string(text))) }
        }
        add("gpsdDevice", source.device)
        add("tokenFile", tokenFile)
        add("monitor", monitor)
        add("track", track?.text)
        add("tiles", tiles?.template)
        add("tilesAttribution", tiles?.attribution)
        members.append(JSONMember("tileFiles", .array(tileFiles.map(JSONValue.string))))
        return [Self.handoffFlag, JSONValue.object(members).serialized]
    }

    /// Reads back what ``handoffArguments`` wrote.
    /// - Throws: ``HandoffError`` when the arguments are not that (someone ran `loctrack-serve` by
    ///   hand, or a `loctrack` of another version).
    public init(handoff arguments: [String]) throws(HandoffError) {
        func refused(_ reason: String) -> HandoffError {
            HandoffError(program: InstallLayout.serverName, command: "serve", reason: reason)
        }
        guard arguments.count == 2, arguments[0] == Self.handoffFlag else {
            throw refused("expected \(Self.handoffFlag) and its JSON object")
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: Array(arguments[1].utf8))
        } catch {
            throw refused("its options are not JSON: \(error)")
        }
        func text(_ key: String) -> String? { document[key]?.stringValue }
        func number(_ key: String) throws(HandoffError) -> Double {
            guard let value = document[key]?.doubleValue else { throw refused("no number \(key)") }
            return value
        }
        guard let listenText = text("listen"), let listen = try? ListenAddress(parsing: listenText) else {
            throw refused("no listen address")
        }
        var track: TrackPathPattern?
        if let pattern = text("track") {
            guard let parsed = try? TrackPathPattern(pattern) else { throw refused("a bad track pattern") }
            track = parsed
        }
        var tiles: TileSource?
        if let template = text("tiles") {
            guard let parsed = try? TileSource(template: template, attribution: text("tilesAttribution") ?? "") else {
                throw refused("a bad tile source")
            }
            tiles = parsed
        }
        guard let tileFiles = document["tileFiles"]?.arrayValue?.compactMap(\.stringValue) else {
            throw refused("no tile files")
        }
        guard let host = text("gpsdHost"), let port = text("gpsdPort"), let verbose = document["verbose"]?.boolValue else {
            throw refused("no gpsd source")
        }
        self.init(
            listen: listen, tokenFile: text("tokenFile"), monitor: text("monitor"), dwellSeconds: try number("dwell"),
            track: track, tiles: tiles, tileFiles: tileFiles, staleSeconds: try number("stale"), maximumStreams: Int(try number("maxStreams")),
            verbose: verbose, source: GPSDSource(host: host, port: port, device: text("gpsdDevice")))
    }
}
