import LocTrackProcess
import LocTrackSystem
import LocTrackTrackFiles

// `loctrack trips FILE…` after `loctrack` parsed its words and became this program (exec),
// handing over the files and the format it decided (docs/usage.md#trips). A write to a reader
// that went away (`| head -1`) gives EPIPE, which ends the output quietly, not the process.
ignoreSignal(.brokenPipe)
let options: TripsOptions
do throws(HandoffError) {
    options = try TripsOptions(handoff: Array(CommandLine.arguments.dropFirst()))
} catch {
    printError(error.description)
    exitProcess(ExitCode.usage.rawValue)
}
exitProcess(TripsProgram(SystemTripsEnvironment()).run(files: options.files, format: options.format ?? .json).rawValue)
