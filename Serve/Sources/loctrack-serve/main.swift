import LocTrack
import LocTrackProcess
import LocTrackServe
import LocTrackWeb
import LocTrackServeOptions

// loctrack-serve: what `loctrack serve ARGS` becomes (exec, handed the parsed options). Everything it
// decides is LocTrackWeb's; LocTrackServe is the HTTP server around it (docs/serve.md).
// Each setup failure is one line and its code before anything is served (ServeSetup).
let options = ServeSetup.options(Array(CommandLine.arguments.dropFirst()))
ServeProcess.prepare(verbose: options.verbose)
let hub = LiveHub(maxStreams: options.maximumStreams, regions: ServeSetup.regions(options), recordedTrack: ServeSetup.track(options))
let service = WebService(
    readings: hub, assets: ServeSetup.assets(), token: ServeSetup.token(options), options: options,
    charts: ServeSetup.charts(options))
// As stream without --no-reconnect: while gpsd is away the page says so, and it comes back.
let session = GPSDSession(source: options.source, reconnectPolicy: .automatic, reportsSatellites: true)
let server = ServeRun(
    host: options.listen.host, port: options.listen.port, respond: service.respond(to:),
    respondToTile: service.respondToTile(_:deliver:),
    live: {
        do throws(LocTrackError) {
            try await hub.run(events: session.events())
            return (0, nil)
        } catch {
            return (ExitCode.unavailable.rawValue, "loctrack: \(error)")
        }
    },
    stop: {
        session.finish()
        hub.finish()
    }
)
// The server runs on Swift's pool and NIO's threads and exits the process itself; the
// main thread only waits, with SIGINT and SIGTERM blocked (not an async main: see
// ServerProcess.parkMainThread). Detached: a task made here would inherit the main
// actor, whose thread is the one parked.
Task.detached { [server] in await server.run() }
ServerProcess.parkMainThread()
