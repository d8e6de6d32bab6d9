import LocTrackServe
import LocTrackWeb

// Until LocTrackWeb's WebService, ServeOptions and LiveHub land: the plumbing alone.
ServeProcess.prepare(verbose: CommandLine.arguments.contains("--verbose"))
let run = ServeRun(
    host: "127.0.0.1", port: 8947, respond: { _ in WebResponse(status: 404) },
    live: { while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }; return (0, nil) }, stop: {})
await run.run()
