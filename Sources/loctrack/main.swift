import LocTrackSystem
import LocTrackCLI
import LocTrackFormats

CLI.prepareProcess()
exitProcess(CLI.runBlocking(CommandLine.arguments).rawValue)
