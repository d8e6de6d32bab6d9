import LocTrackFormats
import LocTrackProcess
import LocTrackServe
import LocTrackWeb
import LocTrackServeOptions
import LocTrackCharts

/// What `loctrack-serve` reads before it binds its address, each failure one line on stderr
/// and its exit code (docs/exit-codes.md): options not handed over by `loctrack serve` (64), the token file (78), the
/// page's files (72), the monitor's regions and the recorded track (64, 65, 74), the charts (65, 66).
enum ServeSetup {
    /// The options `loctrack serve` parsed and handed over (``ServeOptions/handoffArguments``).
    static func options(_ arguments: [String]) -> ServeOptions {
        do {
            return try ServeOptions(handoff: arguments)
        } catch {
            fail(error.description, ExitCode.usage.rawValue)
        }
    }

    static func token(_ options: ServeOptions) -> AccessToken? {
        guard let file = options.tokenFile else { return nil }
        do {
            return try AccessToken.load(from: file)
        } catch {
            fail(error.description, error.exitCode.rawValue)
        }
    }

    static func assets() -> AssetCatalog {
        do {
            return try AssetCatalog.load(webDirectory: AssetCatalog.locateWebDirectory())
        } catch {
            fail(error.description, error.exitCode.rawValue)
        }
    }

    static func regions(_ options: ServeOptions) -> LiveRegions? {
        guard let monitor = options.monitor else { return nil }
        do {
            return try LiveRegions.load(monitor: monitor, dwellSeconds: options.dwellSeconds)
        } catch {
            fail(error.description, error.exitCode)
        }
    }

    static func track(_ options: ServeOptions) -> RecordedTrack? {
        guard let pattern = options.track else { return nil }
        do {
            return try RecordedTrack.load(pattern: pattern.text)
        } catch {
            fail(error.description, error.exitCode)
        }
    }

    /// The `--tiles-file` charts, each checked (nil: none given). A `-wal` file's data that is
    /// not served is said once on stderr.
    static func charts(_ options: ServeOptions) -> ChartLibrary? {
        guard !options.tileFiles.isEmpty else { return nil }
        do {
            let charts = try ChartLibrary(paths: options.tileFiles, onlineBase: options.tiles != nil)
            for warning in charts.warnings { ServerProcess.printError("loctrack: \(warning)") }
            return charts
        } catch {
            fail(error.description, error.exitCode)
        }
    }

    private static func fail(_ message: String, _ code: Int32) -> Never {
        ServerProcess.printError("loctrack: \(message)")
        ServerProcess.exit(code)
    }
}
