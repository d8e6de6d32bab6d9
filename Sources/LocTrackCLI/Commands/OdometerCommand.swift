import LocTrackDistance
import LocTrackFormats
import LocTrackProcess
import LocTrackMonitor
import LocTrackSinks
import LocTrackSystem

/// `loctrack odometer [--set METERS]`: the odometer `stream` and `monitor run` keep, printed in
/// metres, or set (the vehicle's own reading).
struct OdometerCommand {
    let options: OdometerOptions
    let output: StandardOutput

    func run() -> ExitCode {
        guard let path = OdometerFile.path(given: options.file) else { return .outputFailed }
        do throws(OdometerStoreError) {
            var store = try OdometerStore.open(path)
            if let metres = options.setMetres { try store.set(metres: metres) }
            var line = ""
            line.appendFixed(store.metres, decimals: 3)
            do {
                try output.write(line + "\n")
            } catch {
                return error == .closed ? .success : .outputFailed
            }
            return .success
        } catch {
            printError(error.description)
            if case .corruptFile = error { return .dataError }
            return .outputFailed
        }
    }
}

/// Where the odometer is kept: `--odometer-file`, else `odometer` in loctrack's state folder
/// (``StateDirectory``: `$XDG_STATE_HOME/loctrack`, else `~/.local/state/loctrack`), the
/// monitors' folder.
enum OdometerFile {
    /// - Returns: the path; nil, after one line on stderr, when there is no state folder
    ///   (neither variable an absolute path, no home in the password database): exit 74.
    static func path(given: String?, environment: [String: String] = StateDirectory.processEnvironment) -> String? {
        if let given { return given }
        do throws(StateDirectory.Failure) {
            return try StateDirectory.resolve(environment: environment) + "/odometer"
        } catch {
            printError("cannot keep the odometer: \(error)")
            return nil
        }
    }
}
