import LocTrackSystem
import LocTrackServeOptions
import LocTrackProcess
import LocTrackSinks

/// `loctrack serve`: its words were parsed into ``ServeOptions``; the server itself is the
/// program `loctrack-serve`, which this process becomes (exec), handed those options in
/// their one form (``ServeOptions/handoffArguments``), so that `stream` and `once` never
/// carry the HTTP server (docs/serve.md).
struct ServeCommand {
    let options: ServeOptions

    /// Only returns when there is no server to run.
    func run() -> ExitCode {
        let places = InstallLayout.serverCandidates(
            // Without /proc/self/exe the candidates are the override alone, and the message says so.
            override: environmentValue(InstallLayout.serverVariable), programDirectory: try? InstallLayout.runningProgramDirectory())
        guard let server = places.first(where: isExecutableFile) else {
            printError("cannot serve: \(InstallLayout.serverName) is not installed (looked for "
                       + (places.isEmpty ? "it beside loctrack, whose folder is unknown" : places.joined(separator: ", "))
                       + ")")
            return .unavailable
        }
        do throws(Errno) {
            try replaceProcess(with: server, arguments: [server] + options.handoffArguments)
        } catch {
            printError("cannot run \(server): \(error)")
            return .unavailable
        }
    }
}
