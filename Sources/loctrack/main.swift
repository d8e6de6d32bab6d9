import Glibc
import LocTrackCLI

CLI.prepareProcess()
exit(CLI.runBlocking(CommandLine.arguments).rawValue)
