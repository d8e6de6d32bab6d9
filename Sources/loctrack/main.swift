import LocTrackSystem
import LocTrackCLI
import LocTrackProcess

CLI.prepareProcess()
exitProcess(CLI.runBlocking(CommandLine.arguments).rawValue)
