import LocTrackSystem
import LocTrackCLI

CLI.prepareProcess()
exitProcess(CLI.runBlocking(CommandLine.arguments).rawValue)
