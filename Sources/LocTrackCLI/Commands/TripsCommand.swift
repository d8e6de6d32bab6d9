import LocTrackProcess
import LocTrackSystem

/// `loctrack trips`: its words were parsed into ``TripsOptions``; the reading is the program
/// `loctrack-trips`, which this process becomes (exec), handed the files and the format
/// (decided here: text on a terminal, else JSON), so that `loctrack` itself never loads
/// libxml2 (docs/usage.md#trips, docs/distance.md).
struct TripsCommand {
    let options: TripsOptions
    let stdoutIsTerminal: Bool

    /// Only returns when there is no program to run.
    func run() -> ExitCode {
        let places = InstallLayout.tripsCandidates(
            // Without /proc/self/exe the candidates are the override alone, and the message says so.
            override: environmentValue(InstallLayout.tripsVariable), programDirectory: try? InstallLayout.runningProgramDirectory())
        guard let program = places.first(where: isExecutableFile) else {
            printError("cannot read trips: \(InstallLayout.tripsName) is not installed (looked for "
                       + (places.isEmpty ? "it beside loctrack, whose folder is unknown" : places.joined(separator: ", "))
                       + ")")
            return .unavailable
        }
        let format = options.format ?? .default(stdoutIsTerminal: stdoutIsTerminal)
        do throws(Errno) {
            try replaceProcess(with: program, arguments: [program] + options.handoffArguments(format: format))
        } catch {
            printError("cannot run \(program): \(error)")
            return .unavailable
        }
    }
}
