import Glibc
import LocTrackCLI

CLI.prepareProcess()
let code = await CLI.run(CommandLine.arguments)
exit(code.rawValue)
