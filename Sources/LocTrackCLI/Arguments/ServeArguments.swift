import LocTrack
import LocTrackMonitor
import LocTrackServeOptions
import LocTrackFormats
import LocTrackSinks

/// `loctrack serve`'s words (docs/serve.md), parsed once, here: the server is handed the
/// result (``ServeOptions/handoffArguments``), not the words.
extension ServeOptions {
    /// `loctrack help serve`'s text.
    static var helpText: String { HelpText.serve }

    /// Parses the words after `serve`.
    /// Pure: nothing is read, not even the token file.
    /// - Throws: ``UsageError`` naming the offending argument.
    init(arguments: [String]) throws(UsageError) {
        self.init()
        var sawSource = false
        var tilesTemplate: String?
        var attribution: String?
        var dwellGiven = false
        var scanner = ArgumentScanner(arguments[...], command: OptionTable.serve)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--help"), .option("-h"):
                helpRequested = true
                return
            case .option("--listen"):
                let text = try scanner.value(for: "--listen")
                do {
                    listen = try ListenAddress(parsing: text)
                } catch {
                    throw UsageError.invalidValue(text, option: "--listen", expected: error.expected)
                }
            case .option("--token-file"):
                tokenFile = try scanner.path(for: "--token-file", expected: "a file name")
            case .option("--monitor"):
                let name = try scanner.value(for: "--monitor")
                guard MonitorStore.isValidName(name) else {
                    throw UsageError.invalidValue(
                        name, option: "--monitor", expected: "1 to 64 letters, digits, '-', '_' or '.', not starting with '.'")
                }
                monitor = name
            case .option("--dwell"):
                dwellSeconds = try scanner.nonNegativeNumber(for: "--dwell", unit: "seconds")
                dwellGiven = true
            case .option("--track"):
                let text = try scanner.value(for: "--track")
                do {
                    track = try TrackPathPattern(text)
                } catch {
                    throw UsageError.invalidValue(text, option: "--track", expected: error.expected)
                }
            case .option("--tiles"):
                tilesTemplate = try scanner.value(for: "--tiles")
            case .option("--tiles-attribution"):
                attribution = try scanner.value(for: "--tiles-attribution")
            case .option("--tiles-file"):
                // Only named here: the server opens it (SQLite is the server's, not loctrack's).
                tileFiles.append(try scanner.path(for: "--tiles-file", expected: "an MBTiles file"))
                guard tileFiles.count <= Self.mostTileFiles else {
                    throw UsageError.invalidValue(
                        tileFiles.last!, option: "--tiles-file", expected: "at most \(Self.mostTileFiles) chart files")
                }
            case .option("--stale"):
                staleSeconds = try scanner.positiveNumber(for: "--stale", unit: "seconds")
            case .option("--max-streams"):
                maximumStreams = try scanner.positiveInteger(for: "--max-streams")
            case .option("--verbose"), .option("-v"):
                verbose = true
            case .option(let name):
                throw UsageError.unknownOption(name, command: "serve")
            case .positional(let text):
                guard !sawSource else { throw UsageError.unexpectedArgument(text, command: "serve") }
                source = try Command.source(text)
                sawSource = true
            }
        }
        if let tilesTemplate {
            do {
                tiles = try TileSource(template: tilesTemplate, attribution: attribution ?? "")
            } catch {
                let value = error.option == "--tiles" ? tilesTemplate : attribution ?? ""
                throw UsageError.invalidValue(value, option: error.option, expected: error.expected)
            }
        } else if attribution != nil {
            throw UsageError.needs("--tiles-attribution", what: "--tiles")
        }
        if dwellGiven, monitor == nil {
            throw UsageError.needs("--dwell", what: "--monitor")
        }
        if !listen.isLoopback, tokenFile == nil {
            throw UsageError.listenNeedsToken(listen.description)
        }
    }
}
