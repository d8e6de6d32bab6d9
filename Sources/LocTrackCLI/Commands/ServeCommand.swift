import LocTrackSystem

/// `loctrack serve`: its command line was checked by ``ServeOptions``; the server itself is
/// the program `loctrack-serve`, which this process becomes (exec), given the same words,
/// so that `stream` and `once` never carry the HTTP server (docs/serve.md).
struct ServeCommand {
    /// The words after `serve`, as given.
    let arguments: [String]

    /// Only returns when there is no server to run.
    func run() -> ExitCode {
        let places = InstallLayout.serverCandidates(
            override: environmentValue(InstallLayout.serverVariable), programDirectory: InstallLayout.runningProgramDirectory)
        guard let server = places.first(where: isExecutableFile) else {
            printError("cannot serve: \(InstallLayout.serverName) is not installed (looked for "
                       + (places.isEmpty ? "it beside loctrack, whose folder is unknown" : places.joined(separator: ", "))
                       + ")")
            return .unavailable
        }
        let failure = replaceProcess(with: server, arguments: [server] + arguments)
        printError("cannot run \(server): \(failure)")
        return .unavailable
    }
}
